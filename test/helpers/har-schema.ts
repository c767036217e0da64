import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

/**
 * HAR 1.2 as a JSON Schema, written from the specification
 * (http://www.softwareishard.com/blog/har-12-spec/): every object, its required fields and their
 * types; fields starting with `_` are custom and allowed, as the spec allows them.
 */
const pair = {
  type: 'object',
  required: ['name', 'value'],
  properties: { name: { type: 'string' }, value: { type: 'string' }, comment: { type: 'string' } },
  patternProperties: { '^_': true },
  additionalProperties: false,
}
const pairs = { type: 'array', items: pair }
const cookies = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'value'],
    properties: {
      name: { type: 'string' },
      value: { type: 'string' },
      path: { type: 'string' },
      domain: { type: 'string' },
      expires: { type: ['string', 'null'], format: 'date-time' },
      httpOnly: { type: 'boolean' },
      secure: { type: 'boolean' },
      comment: { type: 'string' },
    },
    patternProperties: { '^_': true },
    additionalProperties: false,
  },
}
const size = { type: 'integer', minimum: -1 }
const optionalTiming = { type: 'number', minimum: -1 }
const timing = { type: 'number', minimum: 0 }
const custom = { patternProperties: { '^_': true }, additionalProperties: false }

const HAR_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { type: 'string', const: '1.2' },
        creator: { $ref: '#/$defs/creator' },
        browser: { $ref: '#/$defs/creator' },
        pages: { type: 'array' },
        entries: { type: 'array', items: { $ref: '#/$defs/entry' } },
        comment: { type: 'string' },
      },
      ...custom,
    },
  },
  additionalProperties: false,
  $defs: {
    creator: {
      type: 'object',
      required: ['name', 'version'],
      properties: {
        name: { type: 'string' },
        version: { type: 'string' },
        comment: { type: 'string' },
      },
      ...custom,
    },
    entry: {
      type: 'object',
      required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
      properties: {
        pageref: { type: 'string' },
        startedDateTime: { type: 'string', format: 'date-time' },
        time: { type: 'number', minimum: 0 },
        request: {
          type: 'object',
          required: [
            'method',
            'url',
            'httpVersion',
            'cookies',
            'headers',
            'queryString',
            'headersSize',
            'bodySize',
          ],
          properties: {
            method: { type: 'string' },
            url: { type: 'string', format: 'har-url' },
            httpVersion: { type: 'string' },
            cookies,
            headers: pairs,
            queryString: pairs,
            postData: { type: 'object' },
            headersSize: size,
            bodySize: size,
            comment: { type: 'string' },
          },
          ...custom,
        },
        response: {
          type: 'object',
          required: [
            'status',
            'statusText',
            'httpVersion',
            'cookies',
            'headers',
            'content',
            'redirectURL',
            'headersSize',
            'bodySize',
          ],
          properties: {
            status: { type: 'integer' },
            statusText: { type: 'string' },
            httpVersion: { type: 'string' },
            cookies,
            headers: pairs,
            content: {
              type: 'object',
              required: ['size', 'mimeType'],
              properties: {
                size: { type: 'integer' },
                compression: { type: 'integer' },
                mimeType: { type: 'string' },
                text: { type: 'string' },
                encoding: { type: 'string' },
                comment: { type: 'string' },
              },
              ...custom,
            },
            redirectURL: { type: 'string' },
            headersSize: size,
            bodySize: size,
            comment: { type: 'string' },
          },
          ...custom,
        },
        cache: {
          type: 'object',
          properties: {
            beforeRequest: { type: ['object', 'null'] },
            afterRequest: { type: ['object', 'null'] },
            comment: { type: 'string' },
          },
          ...custom,
        },
        timings: {
          type: 'object',
          required: ['send', 'wait', 'receive'],
          properties: {
            blocked: optionalTiming,
            dns: optionalTiming,
            connect: optionalTiming,
            send: timing,
            wait: timing,
            receive: timing,
            ssl: optionalTiming,
            comment: { type: 'string' },
          },
          ...custom,
        },
        serverIPAddress: { type: 'string' },
        connection: { type: 'string' },
        comment: { type: 'string' },
      },
      ...custom,
    },
  },
}

const ajv = new Ajv2020({ strict: false, allErrors: true })
;(addFormats as unknown as (a: Ajv2020) => void)(ajv)
/**
 * An absolute URL as a browser writes one (its URL serializer), which a HAR's request URL is, for
 * DevTools and Playwright's `routeFromHAR` to match: it parses, and holds nothing a serializer
 * encodes everywhere (spaces, controls, `"`, `<`, `>`, past ASCII, a `%` but before two hex
 * digits, a `\`). RFC 3986's stricter `uri` would refuse `[` in a path and `|` in a query,
 * which browsers send as they are.
 */
ajv.addFormat(
  'har-url',
  (value: string) =>
    URL.canParse(value) && !/[\x00-\x20"<>\\\x7f-\uffff]|%(?![0-9A-Fa-f]{2})/.test(value),
)
const validate = ajv.compile(HAR_SCHEMA)

/** The ways `har` breaks HAR 1.2, as ajv words them; empty when it is valid. */
export function findHarErrors(har: unknown): string[] {
  if (validate(har)) return []
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`)
}
