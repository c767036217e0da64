import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'

/** The dataset every transport is checked against. */
export const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
export const KEY = 'taxonomy-mock-key'
export const AUTH = { authorization: `Bearer ${KEY}` }

const discipline = taxonomy.disciplines[0]!
const sub = taxonomy.subDisciplines.find((s) => taxonomy.topicsOf(s).length > 0)!
const disciplineBody = JSON.stringify(toDisciplineRecord(taxonomy, discipline))
const subBody = JSON.stringify(toSubDisciplineRecord(taxonomy, sub))
const UNAUTHORIZED = '{"error":"Invalid or missing API key"}'
/**
 * Which data answers (`X-Taxonomy-Mock-Dataset`): pinned, so a change to what identifies the data is
 * seen here, as golden digests see a change to the data.
 */
export const SMALL_42_DIGEST = '3fc86cf9360b6f4f'
const DATASET = `taxonomy-mock/v1; seed=42; size=small; digest=${SMALL_42_DIGEST}`
const NOT_FOUND = '{"error":"Resource not found"}'
const MALFORMED_SESSION = JSON.stringify({
  error:
    'Malformed request: a session id is 1-200 letters, digits or . _ ~ : @ - characters, not . or ..',
})

export interface SpecCase {
  readonly name: string
  readonly method: string
  readonly path: string
  /** A list sends the header as that many fields, which a web `Headers` joins with `, `. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>
  readonly status: number
  /** Exact body text; `''` for none. */
  readonly body: string
  /** Headers whose value must match exactly; `null` means absent. */
  readonly expectHeaders?: Readonly<Record<string, string | null>>
}

const d = `/api/v2/disciplines/${discipline.slug}`
const s = `/api/v2/sub_disciplines/${sub.slug}`

/**
 * Repeated header fields: sent as separate fields over a socket, joined with `, ` by `Headers` in
 * fetch, MSW and the fetch handler. Every transport must answer them alike.
 */
const REPEATED_HEADER_CASES: readonly SpecCase[] = [
  {
    name: 'reads two Prefer fields as one list (RFC 7240)',
    method: 'GET',
    path: d,
    headers: { ...AUTH, prefer: ['return=minimal', 'scenario=not-found'] },
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'takes the first of a preference repeated across Prefer fields',
    method: 'GET',
    path: d,
    headers: { ...AUTH, prefer: ['code=401', 'code=404'] },
    status: 401,
    body: UNAUTHORIZED,
    expectHeaders: { 'www-authenticate': 'Bearer' },
  },
  {
    name: 'answers 400 to Prefer fields that together ask for two answers',
    method: 'GET',
    path: d,
    headers: { ...AUTH, prefer: ['scenario=unavailable', 'code=404'] },
    status: 400,
    body: '{"error":"Malformed request: Prefer scenario=unavailable and code=404 ask for different answers; send one"}',
  },
  {
    name: 'takes the first of two Authorization fields',
    method: 'GET',
    path: d,
    headers: { authorization: [`Bearer ${KEY}`, 'Bearer wrong-key'] },
    status: 200,
    body: disciplineBody,
  },
  {
    name: 'answers 401 when the first of two Authorization fields is wrong',
    method: 'GET',
    path: d,
    headers: { authorization: ['Bearer wrong-key', `Bearer ${KEY}`] },
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 401 when the first of two Authorization fields has another scheme',
    method: 'GET',
    path: d,
    headers: { authorization: [`Basic ${KEY}`, `Bearer ${KEY}`] },
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'takes the first of two session fields',
    method: 'GET',
    path: d,
    headers: { ...AUTH, 'x-taxonomy-mock-session': ['s1', 's2'] },
    status: 200,
    body: disciplineBody,
  },
  {
    name: 'answers 400 when the first of two session fields is malformed',
    method: 'GET',
    path: d,
    headers: { ...AUTH, 'x-taxonomy-mock-session': ['no spaces', 's1'] },
    status: 400,
    body: MALFORMED_SESSION,
  },
  // A URL path reads them as its own steps: a session so named would be one transport's only.
  ...['.', '..'].map((id) => ({
    name: `answers 400 to the session id ${id}, which no URL path can name`,
    method: 'GET',
    path: d,
    headers: { ...AUTH, 'x-taxonomy-mock-session': id },
    status: 400,
    body: MALFORMED_SESSION,
  })),
]

/** Spec §4-7 and the README's choices, as request in, answer out. */
export const CASES: readonly SpecCase[] = [
  {
    name: 'answers a discipline (§4.1)',
    method: 'GET',
    path: d,
    headers: AUTH,
    status: 200,
    body: disciplineBody,
    expectHeaders: {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'access-control-expose-headers':
        'WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Taxonomy-Mock-Dataset',
      'x-taxonomy-mock-dataset': DATASET,
    },
  },
  {
    name: 'answers a sub-discipline (§4.2)',
    method: 'GET',
    path: s,
    headers: AUTH,
    status: 200,
    body: subBody,
  },
  {
    name: 'takes the Bearer scheme in any case and spacing',
    method: 'GET',
    path: d,
    headers: { authorization: `bEaReR   ${KEY}` },
    status: 200,
    body: disciplineBody,
  },
  {
    name: 'ignores the query string',
    method: 'GET',
    path: `${d}?include=all&page=2`,
    headers: AUTH,
    status: 200,
    body: disciplineBody,
  },
  {
    name: 'decodes a percent-encoded slug once',
    method: 'GET',
    path: `/api/v2/disciplines/${encodeURIComponent(discipline.slug).replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
    headers: AUTH,
    status: 200,
    body: disciplineBody,
  },
  {
    name: 'answers 401 without an Authorization header',
    method: 'GET',
    path: d,
    status: 401,
    body: UNAUTHORIZED,
    expectHeaders: {
      'www-authenticate': 'Bearer',
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'x-taxonomy-mock-dataset': DATASET,
    },
  },
  {
    name: 'answers 401 to another scheme',
    method: 'GET',
    path: d,
    headers: { authorization: `Basic ${KEY}` },
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 401 to an empty key',
    method: 'GET',
    path: d,
    headers: { authorization: 'Bearer ' },
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 401 when the key is unknown',
    method: 'GET',
    path: s,
    headers: { authorization: 'Bearer wrong-key' },
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 401 before 404 for an unknown slug without a key',
    method: 'GET',
    path: '/api/v2/disciplines/no-such-slug',
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 404 for an unknown discipline slug',
    method: 'GET',
    path: '/api/v2/disciplines/no-such-slug',
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
    expectHeaders: { 'www-authenticate': null },
  },
  {
    name: 'answers 404 for a discipline slug on the sub-discipline path',
    method: 'GET',
    path: `/api/v2/sub_disciplines/${discipline.slug}`,
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for a doubly encoded slug',
    method: 'GET',
    path: `/api/v2/disciplines/%25${discipline.slug}`,
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for prototype names as slugs',
    method: 'GET',
    path: '/api/v2/disciplines/__proto__',
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for constructor as a slug',
    method: 'GET',
    path: '/api/v2/sub_disciplines/constructor',
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 400 for malformed percent-encoding',
    method: 'GET',
    path: '/api/v2/disciplines/%E0%A4%A',
    headers: AUTH,
    status: 400,
    body: '{"error":"Malformed request: the slug is not valid percent-encoding"}',
  },
  {
    name: 'answers 401 for malformed percent-encoding without a key',
    method: 'GET',
    path: '/api/v2/disciplines/%E0%A4%A',
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers HEAD as GET without a body',
    method: 'HEAD',
    path: d,
    headers: AUTH,
    status: 200,
    body: '',
    expectHeaders: {
      'content-length': String(Buffer.byteLength(disciplineBody)),
      'content-type': 'application/json',
    },
  },
  {
    name: 'answers 405 to POST, naming what is allowed',
    method: 'POST',
    path: d,
    headers: AUTH,
    status: 405,
    body: '{"error":"Method not allowed"}',
    expectHeaders: { allow: 'GET, HEAD, OPTIONS' },
  },
  {
    name: 'answers 405 to DELETE on the sub-discipline path',
    method: 'DELETE',
    path: s,
    status: 405,
    body: '{"error":"Method not allowed"}',
    expectHeaders: { allow: 'GET, HEAD, OPTIONS' },
  },
  {
    name: 'answers a CORS preflight with 204',
    method: 'OPTIONS',
    path: d,
    headers: {
      origin: 'http://app.test',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
    status: 204,
    body: '',
    expectHeaders: {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers':
        'Authorization, Content-Type, Prefer, X-Taxonomy-Mock-Session',
      allow: 'GET, HEAD, OPTIONS',
    },
  },
  ...REPEATED_HEADER_CASES,
]

/** Cases the MSW tests leave out: paths outside the endpoints', and ones tested apart (handlers.test.ts). */
export const SERVER_CASES: readonly SpecCase[] = [
  {
    name: 'answers 404 for an empty slug',
    method: 'GET',
    path: '/api/v2/disciplines/',
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for an extra path segment',
    method: 'GET',
    path: `${d}/more`,
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 401 for an extra path segment without a key',
    method: 'GET',
    path: `${d}/more`,
    status: 401,
    body: UNAUTHORIZED,
  },
  {
    name: 'answers 404 for another API version',
    method: 'GET',
    path: `/api/v1/disciplines/${discipline.slug}`,
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for an unknown path under /api/v2',
    method: 'GET',
    path: '/api/v2/topics/anything',
    headers: AUTH,
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers 404 for a path outside the API without asking for a key',
    method: 'GET',
    path: '/nothing-here',
    status: 404,
    body: NOT_FOUND,
  },
  {
    name: 'answers the readiness probe',
    method: 'GET',
    path: '/__health',
    status: 200,
    body: `{"status":"ok","dataset":{"format":"taxonomy-mock/v1","seed":42,"size":"small","digest":"${SMALL_42_DIGEST}"}}`,
    expectHeaders: { 'x-taxonomy-mock-dataset': DATASET },
  },
]

/** Every record of the small dataset, as a 200 case. */
export const RECORD_CASES: readonly SpecCase[] = [
  ...taxonomy.disciplines.map((record) => ({
    name: `discipline ${record.slug}`,
    method: 'GET',
    path: `/api/v2/disciplines/${record.slug}`,
    headers: AUTH,
    status: 200,
    body: JSON.stringify(toDisciplineRecord(taxonomy, record)),
  })),
  ...taxonomy.subDisciplines.map((record) => ({
    name: `sub-discipline ${record.slug}`,
    method: 'GET',
    path: `/api/v2/sub_disciplines/${record.slug}`,
    headers: AUTH,
    status: 200,
    body: JSON.stringify(toSubDisciplineRecord(taxonomy, record)),
  })),
]

/** The headers compared across transports. */
const HEADERS_THAT_MATTER = [
  'content-type',
  'content-length',
  'www-authenticate',
  'allow',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'retry-after',
  'x-taxonomy-mock-dataset',
  'ratelimit',
  'ratelimit-policy',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
] as const

export interface Observed {
  readonly status: number
  readonly headers: Record<string, string | null>
  readonly body: string
}

/** Picks the headers that matter from a header reader. */
export function pickHeaders(
  get: (name: string) => string | null | undefined,
): Record<string, string | null> {
  return Object.fromEntries(HEADERS_THAT_MATTER.map((name) => [name, get(name) ?? null]))
}

/** A case's headers as a web `Headers`: a repeated header appended once per field. */
export function toHeaders(headers: SpecCase['headers'] = {}): Headers {
  const result = new Headers()
  for (const [name, value] of Object.entries(headers)) {
    for (const field of typeof value === 'string' ? [value] : value) result.append(name, field)
  }
  return result
}

/** Checks an observed answer against a case. */
export function expectCase(
  observed: Observed,
  c: SpecCase,
  expect: (v: unknown, m?: string) => any,
): void {
  expect(observed.status, c.name).toBe(c.status)
  expect(observed.body, c.name).toBe(c.body)
  for (const [name, value] of Object.entries(c.expectHeaders ?? {})) {
    expect(observed.headers[name] ?? null, `${c.name}: ${name}`).toBe(value)
  }
}
