import { ADMIN_BODY_LIMIT } from './admin-body.js'
import { allowedMethods } from './admin-commands.js'
import { METRICS_ALLOW } from './metrics-route.js'
import type { AdminResource } from './routes.js'
import { MAX_DELAY } from './delay.js'
import { HELPER_NAMES, JOURNAL_LIMITS, PLAIN_REASONS } from './journal.js'
import {
  ADMIN_KEY_HEADER,
  ADMIN_KEY_HEADER_NAME,
  DATASET_HEADER_NAME,
  SESSION_HEADER_NAME,
} from './header-names.js'
import { SESSION_ID_PATTERN } from './session-id.js'
import { DATA_LIMITS } from './session-data.js'
import { LINKS, MAX_NAME_LENGTH } from '../core/fixture.js'
import { MAX_SLUG_LENGTH } from '../core/slug.js'
import { LEVELS, type Level } from '../core/types.js'
import { PRESET_NAMES } from '../core/presets.js'
import { SHAPES, type FieldKind } from '../core/shapes.js'
import { ENDPOINT_LIST, listEndpoints, type Endpoint } from './endpoints.js'
import {
  KIND_OPTION_NAMES,
  kindOptionSchemas,
  preferOptionsText,
  readersOf,
} from './kind-options.js'
import { kindSpec, type ScenarioKind } from './kinds.js'
import { PRISM_CODES } from './prefer.js'
import {
  DEFAULT_FAULT_KINDS,
  FAULT_KINDS,
  MAX_TTL,
  SCENARIO_KINDS,
  USUAL_STEP,
} from './scenario.js'
import { DEFAULT_STATUSES, type ErrorStatuses } from './options.js'
import { ALLOW, errorMessage, RETRY_AFTER_SECONDS } from './responses.js'

/**
 * OpenAPI 3.1 description of the endpoints (a path per row of `ENDPOINTS`) as this mock answers them: spec §2 shapes with no
 * extra fields, §5 Bearer auth, §7 error bodies, and the statuses docs/spec-choices.md records.
 * The scenario controls (`Prefer`, the session header) are optional parameters; the admin API has
 * its own tag, so clients generated for the service can leave it out.
 */

const id = { type: 'string', format: 'uuid' } as const
const text = { type: 'string' } as const
const count = { type: 'integer', minimum: 0 } as const
const slug = { type: 'string', pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$' } as const

/** An `object` schema with more properties that may be absent. */
function withOptional(
  schema: ReturnType<typeof object>,
  optional: Record<string, unknown>,
): ReturnType<typeof object> {
  return { ...schema, properties: { ...schema.properties, ...optional } }
}

function object(properties: Record<string, unknown>) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  }
}

const FIELD_SCHEMAS = { uuid: id, id, text, slug, count } as const

function fieldSchema(kind: FieldKind) {
  return typeof kind === 'string'
    ? FIELD_SCHEMAS[kind]
    : { type: 'array', items: { $ref: `#/components/schemas/${kind.items}` } }
}

/** The component schemas of the spec's shapes (§2), read from `SHAPES`. */
function shapeSchemas() {
  return Object.fromEntries(
    Object.entries(SHAPES).map(([name, fields]) => [
      name,
      object(
        Object.fromEntries(
          Object.entries(fields).map(([field, kind]) => [field, fieldSchema(kind)]),
        ),
      ),
    ]),
  ) as Readonly<Record<keyof typeof SHAPES, ReturnType<typeof object>>>
}

function errorResponse(description: string, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

const PREFER = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    `Mock only: a scenario for this request (RFC 7240). \`scenario=KIND\`, or Prism's \`code=${[...PRISM_CODES.keys()].join('|')}\` ` +
    '(`code=200`: the usual answer), optionally `slug=SLUG`, `delay=MS` or `delay=MIN-MAX`, and ' +
    `${preferOptionsText()}, comma-separated. ` +
    `Kinds: ${SCENARIO_KINDS.join(', ')}.`,
  schema: { type: 'string' },
  examples: {
    unavailable: { value: 'scenario=unavailable' },
    slow: { value: 'delay=100-500' },
    prism: { value: 'code=404' },
  },
} as const

const digits = { type: 'string', pattern: '^[0-9]+$' } as const

const SESSION = {
  name: SESSION_HEADER_NAME,
  in: 'header',
  required: false,
  description:
    'Mock only: the session whose scenario and journal this request belongs to (or the path prefix /__sessions/{id}).',
  schema: { type: 'string', pattern: SESSION_ID_PATTERN.source },
} as const

/**
 * The error responses of a lookup, keyed by status. The `statuses` option may put the key and
 * not-found errors on other statuses, even on one they share with another error: then one entry
 * describes both. With `upstream` (records the data lacks asked of the real service), 502 too.
 */
function errorResponses(statuses: Required<ErrorStatuses>, upstream: boolean) {
  const rows: [number, string, Record<string, unknown>?][] = [
    [400, 'The slug is not valid percent-encoding, or a Prefer value or session id is malformed'],
    [
      statuses.unauthorized,
      errorMessage('unauthorized'),
      { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } },
    ],
    [statuses.notFound, errorMessage('notFound')],
    [
      429,
      'Mock only: the rate-limited scenario (a gateway in front of the service)',
      RATE_LIMIT_HEADERS,
    ],
    // The server's limits on a client (not the MSW handlers'): its time and the size of its head.
    [408, `Server only: ${errorMessage('requestTimeout')} (the request head took over 10 s)`],
    [431, `Server only: ${errorMessage('headersTooLarge')} (over 16 KB)`],
    [500, 'Mock only: the server-error scenario'],
    [
      503,
      'Mock only: the unavailable scenario',
      { 'Retry-After': { schema: { type: 'string', const: RETRY_AFTER_SECONDS } } },
    ],
    [503, 'Server only: busy, answers its clients have not read taking up its memory budget'],
  ]
  if (upstream)
    rows.push([
      502,
      'With --upstream: the real service gave no answer to relay (down, no answer in time, malformed HTTP, a redirect, a body over 16 MB, broken off or in an encoding the key check cannot read, the key in its answer)',
    ])
  const merged = new Map<number, { descriptions: string[]; headers?: Record<string, unknown> }>()
  for (const [status, description, headers] of rows) {
    const entry = merged.get(status) ?? { descriptions: [] }
    entry.descriptions.push(description)
    if (headers) entry.headers = { ...entry.headers, ...headers }
    merged.set(status, entry)
  }
  return Object.fromEntries(
    [...merged]
      .sort(([a], [b]) => a - b)
      .map(([status, entry]) => [
        String(status),
        errorResponse(entry.descriptions.join('; or: '), entry.headers),
      ]),
  )
}

const DATASET_HEADER_SCHEMA = {
  description:
    'Mock only: which data answered (the fields of the `Dataset` schema, as `taxonomy-mock/v1; seed=42; size=medium; digest=…`); not on the answers the server gives a request it could not read (408, 431), nor with `--upstream` on an answer relayed as it came or the 502',
  schema: { type: 'string' },
} as const

/**
 * Each response with `X-Taxonomy-Mock-Dataset` among its headers: every answer under `/api/` has
 * it, but one relayed from an upstream (kept as it came) and the upstream's 502.
 */
function withDatasetHeader(
  responses: Record<
    string,
    { description: string; headers?: Record<string, unknown>; content?: unknown }
  >,
) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: { ...response.headers, [DATASET_HEADER_NAME]: DATASET_HEADER_SCHEMA },
      },
    ]),
  )
}

/** A response as HEAD gets it: the same status and headers, no body. */
function withoutBody(responses: Record<string, { description: string; headers?: unknown }>) {
  return Object.fromEntries(
    Object.entries(responses).map(([status, { description, headers }]) => [
      status,
      { description, ...(headers ? { headers } : {}) },
    ]),
  )
}

const slugParameter = (noun: string) =>
  ({
    name: 'slug',
    in: 'path',
    required: true,
    description: `The URL slug of the ${noun}`,
    schema: { type: 'string' },
  }) as const

/** The methods an endpoint answers; any other gets 405 (`responses.ts`). */
const METHODS_NOTE = `Any other method (PUT, POST, DELETE, PATCH, ...) gets 405 with \`Allow: ${ALLOW}\` and the error body {"error":"${errorMessage('methodNotAllowed')}"}. They are left out as operations, so that generated clients have none; a validating proxy such as Prism answers them 405 itself.`

const PREFLIGHT_HEADER_SCHEMAS = {
  Allow: { schema: { type: 'string', const: ALLOW } },
  'Access-Control-Allow-Origin': { schema: { type: 'string', const: '*' } },
  'Access-Control-Allow-Methods': { schema: { type: 'string', const: ALLOW } },
  'Access-Control-Allow-Headers': { schema: { type: 'string' } },
  'Access-Control-Max-Age': { schema: digits },
}

/** The API's preflight, which the probe and this document get too: never delayed, failed or journaled. */
function apiPreflight(operationId: string, tag: 'taxonomy' | 'mock', parameters?: unknown[]) {
  return {
    summary: 'CORS preflight: never delayed, failed or journaled, whatever the scenario',
    operationId,
    tags: [tag],
    ...(parameters ? { parameters } : {}),
    responses: {
      '204': {
        description:
          'The methods and headers a page may send; the Access-Control-* headers unless the server runs with --no-cors',
        headers: PREFLIGHT_HEADER_SCHEMAS,
      },
    },
  }
}

function lookup(
  { noun, operationId, schema, children }: Endpoint,
  statuses: Required<ErrorStatuses>,
  upstream: boolean,
) {
  const responses = withDatasetHeader({
    '200': {
      description: `The ${noun} with its parents${children === undefined ? '' : ' and children'}`,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
    },
    ...errorResponses(statuses, upstream),
  })
  const parameters = [slugParameter(noun), PREFER, SESSION]
  return {
    description: METHODS_NOTE,
    get: {
      summary: `Get a ${noun}`,
      operationId,
      tags: ['taxonomy'],
      security: [{ bearerAuth: [] }],
      parameters,
      responses,
    },
    head: {
      summary: `The headers GET would send for a ${noun}, without its body`,
      operationId: operationId.replace(/^get/, 'head'),
      tags: ['taxonomy'],
      security: [{ bearerAuth: [] }],
      parameters,
      responses: withoutBody(responses),
    },
    options: apiPreflight(operationId.replace(/^get/, 'preflight'), 'taxonomy', [
      slugParameter(noun),
    ]),
  }
}

const sessionId = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The session id; `default` for requests that name none',
  schema: SESSION.schema,
} as const
const adminJson = (description: string, schema: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
})
const adminErrors = {
  '400': errorResponse('A malformed session id, body or scenario'),
  '403': errorResponse(
    `Not a loopback client addressed by IP or localhost, a page of another origin, or the admin key is missing from ${ADMIN_KEY_HEADER}`,
  ),
  '503': errorResponse(
    "A replica started with `--store` cannot reach its Redis (`Session store unavailable: …`), or a journal read misses another replica's part (`Journal incomplete: …`); with `Retry-After`",
  ),
}

/** The server's answer to an admin body that stalls (a fetch handler reads a body whole). */
const adminBodyTimeout = errorResponse(
  'Server only: Request timeout: the body did not arrive within the request timeout (30 s)',
)

/** The 413 of a body past its limit, or of what it holds past the memory budget. */
const adminTooLarge = (limit: string, kept: string) =>
  errorResponse(
    `${limit}, or its ${kept} would take what the sessions hold past the memory budget (memoryBudget, --memory-budget; nothing changes)`,
  )

/** 405 to the methods a path does not take, said at the path: generated clients get no operation for them. */
function otherMethods(allow: string, first: string): string {
  return `Any other method (HEAD too, where not listed) gets 405 with \`Allow: ${allow}\` and the error body {"error":"${errorMessage('methodNotAllowed')}"}, after ${first}.`
}

/** The 204 an admin path or the metrics give `OPTIONS`: no CORS headers, whatever `cors` says. */
function preflight(operationId: string, allow: string, refusals: Record<string, unknown>) {
  return {
    summary:
      'The methods this path takes; no CORS headers, so a browser lets no page of another origin call it',
    operationId,
    tags: ['admin'],
    responses: {
      '204': {
        description: 'The methods this path takes',
        headers: { Allow: { schema: { type: 'string', const: allow } } },
      },
      ...refusals,
    },
  }
}

/** An admin resource's path: its operations, its preflight, and 405 to any other method. */
function adminPath(
  resource: AdminResource,
  preflightId: string,
  operations: Record<string, unknown>,
) {
  const allow = allowedMethods(resource)
  return {
    description: otherMethods(
      allow,
      'the access and session id checks, whose 403 and 400 come first',
    ),
    ...operations,
    options: {
      ...preflight(preflightId, allow, {
        '403': errorResponse('A page of another origin (its Origin or Sec-Fetch-Site header)'),
      }),
      parameters: [sessionId],
    },
  }
}

function admin(summary: string, operationId: string, extra: Record<string, unknown>) {
  return {
    summary,
    operationId,
    tags: ['admin'],
    security: [{}, { adminKey: [] }],
    parameters: [sessionId],
    ...extra,
  }
}

/**
 * The admin API: per-session scenarios and request journals, and the metrics (server only, not
 * the service).
 */
function adminPaths() {
  return { ...journalAdminPaths(), ...dataAdminPaths(), ...sessionAdminPaths() }
}

/** A session's scenario and its request journal. */
function journalAdminPaths() {
  return {
    '/__admin/sessions/{id}/scenario': adminPath('scenario', 'preflightSessionScenario', {
      get: admin("Read a session's scenario", 'getSessionScenario', {
        responses: { '200': adminJson('The scenario, or null', 'SessionScenario'), ...adminErrors },
      }),
      put: admin("Set a session's scenario", 'putSessionScenario', {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Scenario' } } },
        },
        responses: {
          '200': adminJson('The scenario now in place', 'SessionScenario'),
          ...adminErrors,
          '408': adminBodyTimeout,
          '413': adminTooLarge(`A body over ${ADMIN_BODY_LIMIT / 1024} KB`, 'scenario'),
        },
      }),
      delete: admin("Clear a session's scenario", 'deleteSessionScenario', {
        responses: { '200': adminJson('No scenario', 'SessionScenario'), ...adminErrors },
      }),
    }),
    '/__admin/sessions/{id}/requests': adminPath('requests', 'preflightSessionRequests', {
      get: admin(
        `Read a session's request journal, oldest first (the last ${withCommas(JOURNAL_LIMITS.entries)})`,
        'getSessionRequests',
        {
          responses: {
            '200': {
              description: 'The journal',
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/JournalEntry' } },
                },
              },
            },
            ...adminErrors,
          },
        },
      ),
      delete: admin("Empty a session's journal", 'deleteSessionRequests', {
        responses: {
          '200': {
            description: 'An empty journal',
            content: { 'application/json': { schema: { type: 'array', maxItems: 0 } } },
          },
          ...adminErrors,
        },
      }),
    }),
  } as const
}

/** A session's patch over the data, and its journal as HAR. */
function dataAdminPaths() {
  return {
    '/__admin/sessions/{id}/data': adminPath('data', 'preflightSessionData', {
      get: admin("Read a session's patch over the data", 'getSessionData', {
        responses: { '200': adminJson('The patch, or null', 'SessionData'), ...adminErrors },
      }),
      put: admin(
        "Set a session's patch over the data: records added or replaced by id or slug, as patchTaxonomy takes them. Links, counts and back-links stay true; only this session's requests see it",
        'putSessionData',
        {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    { $ref: '#/components/schemas/Patch' },
                    { $ref: '#/components/schemas/Preset' },
                  ],
                },
              },
            },
          },
          responses: {
            '200': adminJson('The patch now in place and what it changed', 'SessionData'),
            ...adminErrors,
            '400': {
              description:
                'A patch with problems (nothing changes): each problem at its path in the patch; or, as `Error`, a malformed session id or a body that is not JSON',
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      { $ref: '#/components/schemas/PatchError' },
                      { $ref: '#/components/schemas/Error' },
                    ],
                  },
                },
              },
            },
            '408': adminBodyTimeout,
            '413': adminTooLarge(
              `A body over ${DATA_LIMITS.patchBytes / 1024} KB, or past ${DATA_LIMITS.totalBytes / 1024 / 1024} MB of every session's patches together`,
              'patch',
            ),
          },
        },
      ),
      delete: admin("Remove a session's patch: it sees the data as it is", 'deleteSessionData', {
        responses: { '200': adminJson('No patch', 'SessionData'), ...adminErrors },
      }),
    }),
    '/__admin/sessions/{id}/requests.har': adminPath('har', 'preflightSessionHar', {
      get: admin("A session's request journal as a HAR 1.2 file", 'getSessionHar', {
        parameters: [
          sessionId,
          {
            name: 'baseUrl',
            in: 'query',
            required: false,
            description:
              'The origin the requests were sent to, put in front of each path; default http:// and the Host of this request',
            schema: { type: 'string', format: 'uri' },
          },
        ],
        responses: { '200': adminJson('The HAR file', 'Har'), ...adminErrors },
      }),
    }),
  } as const
}

/** A whole session, and the metrics. */
function sessionAdminPaths() {
  return {
    '/__admin/sessions/{id}': adminPath('session', 'preflightSession', {
      get: admin("A session's scenario and the size of its journal", 'getSession', {
        responses: { '200': adminJson('The session', 'SessionSummary'), ...adminErrors },
      }),
      put: admin(
        'Make a session afresh, empty: no scenario, no patch, an empty journal. From then on a request refused for its key is journaled in it too (only an existing session journals those)',
        'putSession',
        {
          responses: {
            '200': adminJson('The session, now empty', 'SessionSummary'),
            ...adminErrors,
          },
        },
      ),
      delete: admin('Forget a session: its scenario, journal and patch', 'deleteSession', {
        responses: { '200': adminJson('The session, now empty', 'SessionSummary'), ...adminErrors },
      }),
    }),
    '/__metrics': {
      description: otherMethods(METRICS_ALLOW, 'the access check, whose 403 comes first'),
      get: {
        summary:
          'Requests by endpoint, status and scenario kind, answer times, delays and sessions, for Prometheus',
        operationId: 'getMetrics',
        tags: ['admin'],
        security: [{}, { adminKey: [] }],
        responses: {
          '200': {
            description: 'The metrics in the Prometheus text exposition format 0.0.4',
            content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
          },
          '403': adminErrors['403'],
        },
      },
      head: {
        summary: 'The headers GET would send for the metrics, without the body',
        operationId: 'headMetrics',
        tags: ['admin'],
        security: [{}, { adminKey: [] }],
        responses: withoutBody({
          '200': { description: 'The metrics, headers only' },
          '403': adminErrors['403'],
        }),
      },
      options: preflight('preflightMetrics', METRICS_ALLOW, {
        '403': errorResponse('A page of another origin (its Origin or Sec-Fetch-Site header)'),
      }),
    },
  } as const
}

/** The probe's `session` query parameter: whose data it names. */
const SESSION_QUERY = {
  name: 'session',
  in: 'query',
  required: false,
  description:
    "The session whose data to name (or the path prefix /__sessions/{id}); the default session's when left out",
  schema: SESSION.schema,
} as const

/** A path beside the API that any client reads without a key: GET, HEAD and the API's preflight. */
function sitePath(
  name: string,
  summary: string,
  responses: Record<string, { description: string; headers?: unknown; content?: unknown }>,
  parameters?: unknown[],
) {
  const get = { tags: ['mock'], ...(parameters ? { parameters } : {}) }
  return {
    description: METHODS_NOTE,
    get: { summary, operationId: `get${name}`, ...get, responses },
    head: {
      summary: 'The headers GET would send, without the body',
      operationId: `head${name}`,
      ...get,
      responses: withoutBody(responses),
    },
    options: apiPreflight(`preflight${name}`, 'mock'),
  }
}

/**
 * The readiness probe and this document: answered by the server and a fetch handler (MSW handlers
 * intercept the endpoints alone), no key, no scenario, no journal; the probe is never delayed, nor
 * waits for a `--store`'s Redis when it names no session.
 */
function sitePaths() {
  return {
    '/__health': sitePath(
      'Health',
      'Readiness probe: the data this server answers with; never delayed, whatever the delay option says',
      {
        '200': {
          description:
            'Ready, naming the data it answers with (the fields X-Taxonomy-Mock-Dataset holds)',
          headers: { [DATASET_HEADER_NAME]: DATASET_HEADER_SCHEMA },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
        },
        '400': errorResponse('The session parameter is no session id'),
      },
      [SESSION_QUERY],
    ),
    '/openapi.json': sitePath(
      'OpenApi',
      "This document, as this server answers: the key and not-found errors under the server's statuses, and with --upstream its 502",
      {
        '200': {
          description: 'The OpenAPI 3.1 document',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    ),
  } as const
}

/**
 * A patch record of `level`: its fields, each optional, and the link to its parents that its level
 * has (none at the top). Another level's link is an unknown field to the patch checker.
 */
function recordPatchSchema(level: Level) {
  const link = LINKS[level]
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      id,
      name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
      slug: { ...slug, maxLength: MAX_SLUG_LENGTH },
      description: text,
      ...(link && { [link.field]: { type: 'array', minItems: 1, uniqueItems: true, items: id } }),
    },
  }
}

/** The `rate-limited` answer's headers (draft-ietf-httpapi-ratelimit-headers-11 and the X- trio). */
const RATE_LIMIT_HEADERS = {
  'Retry-After': { schema: digits, description: 'Seconds until the window ends' },
  RateLimit: {
    schema: { type: 'string', pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
    description: 'The quota left and the seconds until the window ends',
  },
  'RateLimit-Policy': {
    schema: { type: 'string', pattern: '^"default";q=[0-9]+;w=[0-9]+$' },
    description: 'The quota of a window and its length in seconds',
  },
  'X-RateLimit-Limit': { schema: digits },
  'X-RateLimit-Remaining': { schema: digits },
  'X-RateLimit-Reset': { schema: digits, description: 'Seconds until the window ends' },
}
const milliseconds = { type: 'number', minimum: 0, maximum: MAX_DELAY } as const
/** A range's bounds: its draws are whole milliseconds. */
const wholeMilliseconds = { type: 'integer', minimum: 0, maximum: MAX_DELAY } as const
const DELAY_SCHEMA = {
  oneOf: [
    milliseconds,
    {
      type: 'array',
      prefixItems: [wholeMilliseconds, wholeMilliseconds],
      minItems: 2,
      maxItems: 2,
    },
    {
      description: 'Lognormal: each request draws from the seeded stream',
      type: 'object',
      additionalProperties: false,
      required: ['median', 'p99'],
      properties: {
        median: { type: 'number', exclusiveMinimum: 0, maximum: MAX_DELAY },
        p99: milliseconds,
      },
    },
  ],
} as const
/** A scenario's own `delay` may also split a streamed answer's wait (`slow-body`). */
const SCENARIO_DELAY_SCHEMA = {
  oneOf: [
    ...DELAY_SCHEMA.oneOf,
    {
      description:
        "With kind 'slow-body': the wait before the head (ttfb, any delay form) and the milliseconds the body takes (body)",
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { ttfb: DELAY_SCHEMA, body: milliseconds },
    },
  ],
} as const

/**
 * Each of `fields` present, as one schema each. Each names its field in `properties` too (`true`):
 * Ajv's strict mode wants a `required` field defined, and the type `required` applies to, where it is
 * required.
 */
const given = (fields: readonly string[]) =>
  fields.map((field) => ({ type: 'object', required: [field], properties: { [field]: true } }))
/** The kinds that answer as usual (`delay`): a scenario or step of one needs a `delay`. */
const DELAY_KINDS = SCENARIO_KINDS.filter((kind) => kindSpec(kind).answer === 'usual')
/** The kinds a scenario or step may name alone. */
const ANSWERING_KINDS = SCENARIO_KINDS.filter((kind) => !DELAY_KINDS.includes(kind))
const NEEDS_DELAY = {
  if: { required: ['kind'], properties: { kind: { enum: DELAY_KINDS } } },
  then: given(['delay'])[0],
} as const

/** A scenario, a fault or a step that draws one of `kinds`: a kind option needs one that reads it. */
function drawing(kinds: readonly ScenarioKind[]) {
  const named = { enum: kinds }
  const byDefault = DEFAULT_FAULT_KINDS.some((kind) => kinds.includes(kind))
  const listed = {
    type: 'object',
    required: ['kinds'],
    properties: { kinds: { type: 'array', contains: named } },
  }
  return {
    anyOf: [
      { required: ['kind'], properties: { kind: named } },
      {
        required: ['faults'],
        properties: {
          faults: byDefault ? { anyOf: [{ not: given(['kinds'])[0] }, listed] } : listed,
        },
      },
      {
        required: ['sequence'],
        properties: {
          sequence: {
            type: 'array',
            contains: {
              anyOf: [named, { type: 'object', required: ['kind'], properties: { kind: named } }],
            },
          },
        },
      },
    ],
  }
}

/**
 * What `parseScenario` checks across the fields of a scenario object, as far as JSON Schema says
 * it (not `median <= p99`, nor a range's `min <= max`): so that a body the schema takes is one the
 * admin API takes.
 */
function scenarioRules() {
  return {
    anyOf: given(['kind', 'delay', 'faults', 'sequence']),
    dependentRequired: { repeat: ['sequence'], limit: ['kind'], window: ['limit'], per: ['limit'] },
    dependentSchemas: {
      limit: { properties: { kind: { const: 'rate-limited' } } },
      faults: { not: { anyOf: given(['kind', 'seed']) } },
      sequence: { not: { anyOf: given(['kind', 'times', 'delay', 'faults']) } },
      ...Object.fromEntries(
        KIND_OPTION_NAMES.map((option) => [option, drawing(readersOf(option))]),
      ),
    },
    allOf: [
      NEEDS_DELAY,
      // `delay: { ttfb, body }` splits a streamed answer's wait; its `body` is `duration` again.
      {
        if: {
          required: ['delay'],
          properties: { delay: { type: 'object', anyOf: given(['ttfb', 'body']) } },
        },
        then: { required: ['kind'], properties: { kind: { const: 'slow-body' } } },
      },
      {
        not: {
          required: ['delay', 'duration'],
          properties: { delay: { type: 'object', ...given(['body'])[0] }, duration: true },
        },
      },
    ],
  } as const
}

/**
 * The document a resolver serves at `GET /openapi.json`: the key and not-found errors under the
 * statuses it answers them with (the `statuses` option), and its 502 when it asks an upstream
 * for the records its data lacks (`serve --upstream`, but `--on-miss fail`).
 *
 * @example
 * createOpenApiDocument({ unauthorized: 403, notFound: 404 }).paths['/api/v2/disciplines/{slug}'].get.responses['403']
 */
export function createOpenApiDocument(
  statuses: Required<ErrorStatuses> = DEFAULT_STATUSES,
  upstream = false,
) {
  const document = openApiDocument()
  // The lookup paths come first in the document: replaced, they keep their place.
  return { ...document, paths: { ...document.paths, ...lookupPaths(statuses, upstream) } }
}

/** The API's path of each endpoint, for the statuses given. */
function lookupPaths(statuses: Required<ErrorStatuses>, upstream: boolean) {
  return Object.fromEntries(
    ENDPOINT_LIST.map((endpoint) => [
      `/api/v2/${endpoint.collection}/{slug}`,
      lookup(endpoint, statuses, upstream),
    ]),
  )
}

/**
 * The document of the default options, shipped as `taxonomy-mock/openapi.json`: built when first
 * asked for, not as the module loads (its thousand objects were some 3 ms of every start-up).
 */
export function openApiDocument() {
  return (document ??= buildDocument())
}

let document: ReturnType<typeof buildDocument> | undefined

function buildDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Academic Taxonomy Lookup Service (taxonomy-mock)',
      version: '2.0.0',
      description: `Look up ${listEndpoints((endpoint) => `one ${endpoint.noun}`, 'or')} by slug, with its parents and children.`,
    },
    servers: [{ url: '/' }],
    tags: [
      {
        name: 'taxonomy',
        description: `The service: look up ${listEndpoints((endpoint) => `one ${endpoint.noun}`, 'or')} by slug`,
      },
      {
        name: 'admin',
        description:
          'taxonomy-mock only: per-session scenarios, request journals, patches over the data, and the metrics. Leave this tag out of generated API clients.',
      },
      {
        name: 'mock',
        description:
          'taxonomy-mock only: the readiness probe and this document, which any client reads without a key. Leave this tag out of generated API clients.',
      },
    ],
    paths: {
      ...lookupPaths(DEFAULT_STATUSES, false),
      ...adminPaths(),
      ...sitePaths(),
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        adminKey: {
          type: 'apiKey',
          in: 'header',
          name: ADMIN_KEY_HEADER_NAME,
          description: 'Needed only when the server was started with --admin-key',
        },
      },
      schemas: {
        Error: object({ error: text }),
        ...shapeSchemas(),
        Scenario: scenarioSchema(),
        ...sessionSchemas(),
        ...journalSchemas(),
      },
    },
  } as const
}

/** The admin API's scenario object, with the rules across its fields (`scenarioRules`). */
function scenarioSchema() {
  return {
    oneOf: [
      { type: 'string', enum: ANSWERING_KINDS },
      {
        type: 'object',
        additionalProperties: false,
        ...scenarioRules(),
        properties: {
          kind: { type: 'string', enum: SCENARIO_KINDS },
          slug: { type: 'string', minLength: 1, maxLength: 1000 },
          endpoint: {
            type: 'string',
            enum: ENDPOINT_LIST.map((endpoint) => endpoint.collection),
          },
          times: { type: 'integer', minimum: 1 },
          ttl: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_TTL,
            description: 'Milliseconds after it is set at which the scenario ends by itself',
          },
          delay: SCENARIO_DELAY_SCHEMA,
          seed: {
            type: 'integer',
            minimum: 0,
            description: 'The seed the delays draw from (with faults: faults.seed)',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            description: 'With kind rate-limited: the requests a window lets through',
          },
          window: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_DELAY,
            description: 'With limit: the window in milliseconds (default 1000)',
          },
          per: {
            type: 'string',
            enum: ['session', 'key'],
            description: 'With limit: one quota per session, or per API key within it',
          },
          faults: {
            type: 'object',
            additionalProperties: false,
            required: ['rate'],
            properties: {
              rate: { type: 'number', minimum: 0, maximum: 1 },
              seed: { type: 'integer', minimum: 0 },
              kinds: {
                type: 'array',
                minItems: 1,
                items: { type: 'string', enum: FAULT_KINDS },
              },
            },
          },
          ...kindOptionSchemas(),
          sequence: {
            description:
              "One step per matching request, in order, then the usual answer: a kind's name, 'usual', or an object",
            type: 'array',
            minItems: 1,
            maxItems: 1000,
            items: {
              oneOf: [
                { type: 'string', enum: [USUAL_STEP, ...ANSWERING_KINDS] },
                {
                  type: 'object',
                  additionalProperties: false,
                  ...NEEDS_DELAY,
                  properties: {
                    kind: { type: 'string', enum: SCENARIO_KINDS },
                    delay: DELAY_SCHEMA,
                    times: { type: 'integer', minimum: 1 },
                  },
                },
              ],
            },
          },
          repeat: {
            type: 'boolean',
            description: 'With sequence: start it again after the last step',
          },
        },
      },
    ],
  } as const
}

/** The schemas of a session: its scenario and summary, its patch and its data. */
function sessionSchemas() {
  return {
    SessionScenario: object({
      session: text,
      scenario: { oneOf: [{ $ref: '#/components/schemas/Scenario' }, { type: 'null' }] },
    }),
    SessionSummary: object({
      session: text,
      scenario: { oneOf: [{ $ref: '#/components/schemas/Scenario' }, { type: 'null' }] },
      requests: count,
    }),
    Patch: {
      type: 'object',
      additionalProperties: false,
      description: `At most ${withCommas(DATA_LIMITS.patchRecords)} records, and arrays and objects nested at most ${DATA_LIMITS.patchDepth} levels deep. A record replaces the one with its id, else the one with its slug (given, or made from its name), keeping fields it does not give; else it is added (a name and a parent link needed)`,
      properties: Object.fromEntries(
        LEVELS.map((level) => [level, { type: 'array', items: recordPatchSchema(level) }]),
      ),
    },
    Preset: {
      ...object({ preset: { type: 'string', enum: PRESET_NAMES } }),
      description:
        'A named patch built from the data: records with fixed slugs for the states a UI is tested against',
    },
    PatchError: object({
      error: text,
      issues: { type: 'array', items: object({ path: text, message: text }) },
      issueCount: count,
    }),
    Dataset: {
      type: 'object',
      additionalProperties: false,
      required: ['format', 'digest'],
      description: 'Which data answers: the same fields as the X-Taxonomy-Mock-Dataset header',
      properties: {
        format: text,
        seed: { type: 'integer', minimum: 0 },
        size: text,
        sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        digest: { type: 'string', pattern: '^[0-9a-f]{16}$' },
        patch: { type: 'string', pattern: '^[0-9a-f]{16}$' },
      },
    },
    Health: object({
      status: { type: 'string', const: 'ok' },
      dataset: { $ref: '#/components/schemas/Dataset' },
    }),
    SessionData: object({
      session: text,
      patch: {
        oneOf: [
          { $ref: '#/components/schemas/Patch' },
          { $ref: '#/components/schemas/Preset' },
          { type: 'null' },
        ],
      },
      changes: {
        oneOf: [
          object(
            Object.fromEntries(
              LEVELS.map((level) => [level, object({ added: count, replaced: count })]),
            ),
          ),
          { type: 'null' },
        ],
      },
      dataset: { $ref: '#/components/schemas/Dataset' },
    }),
  } as const
}

/** The schemas of a request journal: its entries, and the same as HAR. */
function journalSchemas() {
  return {
    JournalEntry: withOptional(
      object({
        t: {
          type: 'number',
          minimum: 0,
          description: 'Milliseconds since the session began (monotonic clock), when it arrived',
        },
        method: text,
        path: {
          ...text,
          description:
            'The request target as received, query included; the value of a secret query parameter (api_key, access_token, key, ..., or an accepted key under any name) reads [redacted]',
        },
        endpoint: {
          type: ['string', 'null'],
          enum: [...ENDPOINT_LIST.map((endpoint) => endpoint.collection), null],
        },
        slug: { type: ['string', 'null'], description: 'Percent-decoded' },
        key: {
          type: 'string',
          enum: ['ok', 'missing', 'invalid'],
          description: 'What the Authorization header carried; never the key',
        },
        status: { type: ['integer', 'null'], description: 'null: no HTTP answer was sent' },
        reason: {
          type: 'string',
          enum: [
            ...PLAIN_REASONS,
            ...SCENARIO_KINDS.map((kind) => `scenario:${kind}`),
            ...SCENARIO_KINDS.map((kind) => `prefer:${kind}`),
            ...HELPER_NAMES,
          ],
          description:
            "Why this answer: the check that decided it, the session's scenario, the request's Prefer header, or the MSW helper by name",
        },
        ms: { type: 'number', minimum: 0, description: 'The delay the mock applied' },
        scenario: { type: ['string', 'null'], enum: [...SCENARIO_KINDS, null] },
      }),
      {
        source: {
          type: 'string',
          enum: ['fixture', 'upstream', 'fault'],
          description:
            'With --upstream only: where the answer came from (the data, the real service, or a fault in place of both)',
        },
        hint: {
          type: 'string',
          description:
            'With --upstream only: why the upstream gave no answer to relay, or the command that captures a missing record',
        },
      },
    ),
    Har: {
      type: 'object',
      required: ['log'],
      description:
        'HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/). Authorization appears only as "Bearer [redacted]"; each entry carries its journal entry as `_journal`.',
      properties: {
        log: {
          type: 'object',
          required: ['version', 'creator', 'entries'],
          properties: {
            version: { const: '1.2' },
            creator: object({ name: text, version: text }),
            entries: { type: 'array', items: { type: 'object' } },
          },
        },
      },
    },
  } as const
}

/**
 * `1,000` for 1000, as `toLocaleString('en')` writes it: the first `toLocaleString` call loads
 * ICU's number formats (about 4 ms, when this document was built as the module loaded).
 */
function withCommas(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
