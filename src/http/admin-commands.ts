import { findAdminRefusal } from './admin-access.js'
import { createIssueList } from '../core/fixture.js'
import { addRepeatedFields } from '../core/repeated-fields.js'
import { adminError, invalidPatchAnswer } from './admin-answers.js'
import { ADMIN_BODY_LIMIT, readJsonBody } from './admin-body.js'
import { findUrlPrefix } from './base-url.js'
import type { MockRequest } from './request.js'
import type { MockAnswer } from './responses.js'
import type { AdminResource } from './routes.js'
import type { Scenario } from './scenario.js'
import { ScenarioState } from './scenario-state.js'
import { DATA_LIMITS, findTooDeepPatch } from './session-data.js'
import { isSessionId, MALFORMED_SESSION_ID } from './sessions.js'

/**
 * One call of the session admin API, parsed and checked: what a {@link SessionStore} applies. Plain
 * JSON, so a command crosses between processes as itself, never as the HTTP request it came from.
 * `session` is always a valid session id.
 */
export type AdminCommand =
  /** `PUT /__admin/sessions/{id}`: the session made afresh, empty. */
  | { readonly op: 'createSession'; readonly session: string }
  /** `GET /__admin/sessions/{id}`. */
  | { readonly op: 'readSession'; readonly session: string }
  /** `DELETE /__admin/sessions/{id}`: its scenario, data and journal are gone. */
  | { readonly op: 'deleteSession'; readonly session: string }
  /** `PUT …/scenario`, with the scenario as parsed (its defaults filled in). */
  | {
      readonly op: 'setScenario'
      readonly session: string
      readonly scenario: Scenario
      /**
       * When its `ttl` runs out, in milliseconds since the epoch (`performance.timeOrigin` plus
       * `performance.now()`, a clock other processes can read): a copy made in another process
       * (a `--workers` worker) ends when the original does, not `ttl` after the copy is made.
       * Left out, the `ttl` counts from when the command is applied.
       */
      readonly endsAt?: number
    }
  | { readonly op: 'readScenario'; readonly session: string }
  | { readonly op: 'clearScenario'; readonly session: string }
  /**
   * `PUT …/data`, with the patch as sent (JSON): it is checked against the data the store serves
   * when applied, which a `--watch` reload may change after parsing.
   */
  | { readonly op: 'setData'; readonly session: string; readonly patch: unknown }
  | { readonly op: 'readData'; readonly session: string }
  | { readonly op: 'clearData'; readonly session: string }
  /** `GET …/requests`. */
  | { readonly op: 'readJournal'; readonly session: string }
  /** `DELETE …/requests`. */
  | { readonly op: 'clearJournal'; readonly session: string }
  /** `GET …/requests.har`, with the origin its entries' URLs start with. */
  | { readonly op: 'readHar'; readonly session: string; readonly origin: string }

type AdminOp = AdminCommand['op']

/** A command, or the 4xx answer refusing the request (no access, a bad id, method, body). */
export type ParsedAdmin = { readonly command: AdminCommand } | { readonly refused: MockAnswer }

/** Which call each method of each admin resource is (its keys, in order, build `Allow`). */
const OPS: Readonly<Record<AdminResource, Readonly<Partial<Record<string, AdminOp>>>>> = {
  scenario: { GET: 'readScenario', PUT: 'setScenario', DELETE: 'clearScenario' },
  requests: { GET: 'readJournal', DELETE: 'clearJournal' },
  session: { GET: 'readSession', PUT: 'createSession', DELETE: 'deleteSession' },
  data: { GET: 'readData', PUT: 'setData', DELETE: 'clearData' },
  har: { GET: 'readHar' },
}

/** The calls that change a session: every process that holds sessions must apply them. */
const WRITES: ReadonlySet<AdminOp> = new Set<AdminOp>([
  'createSession',
  'deleteSession',
  'setScenario',
  'clearScenario',
  'setData',
  'clearData',
  'clearJournal',
])

/** Whether a command changes session state (else it only reads it). */
export function isAdminWrite(command: AdminCommand): boolean {
  return WRITES.has(command.op)
}

/**
 * A write command read from outside this process (another process's message), checked as
 * untrusted input: `undefined` when it is none, or a read. What the parser checks, this checks.
 */
export function parseAdminWrite(value: unknown): AdminCommand | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const { op, session, scenario, patch } = value as Record<string, unknown>
  if (typeof op !== 'string' || !WRITES.has(op as AdminOp) || !isSessionId(session))
    return undefined
  if (op === 'setScenario') {
    try {
      return { op, session, scenario: new ScenarioState(scenario as never).scenario }
    } catch {
      return undefined
    }
  }
  if (op === 'setData') return patch === undefined ? undefined : { op, session, patch }
  return { op: op as Exclude<AdminOp, 'setScenario' | 'setData' | 'readHar'>, session }
}

/** The `Allow` header of an admin resource. */
export function allowedMethods(resource: AdminResource): string {
  return [...Object.keys(OPS[resource]), 'OPTIONS'].join(', ')
}

/**
 * The one parser of the admin API: a located admin request (`routes.ts` found its session and
 * resource) to the command it asks for, or the answer refusing it. In order: access, the session
 * id, the method, then the body.
 *
 * @example
 * await parseAdminCommand(request, 't1', 'scenario', undefined)
 * // { command: { op: 'setScenario', session: 't1', scenario: { kind: 'unavailable', … } } }
 */
export async function parseAdminCommand(
  request: MockRequest,
  session: string,
  resource: AdminResource,
  adminKey: string | undefined,
): Promise<ParsedAdmin> {
  const refusal = findAdminRefusal(request, adminKey)
  if (refusal !== undefined) return { refused: adminError('forbidden', refusal) }
  if (!isSessionId(session)) return { refused: adminError('badRequest', MALFORMED_SESSION_ID) }
  const ops = OPS[resource]
  const op = Object.hasOwn(ops, request.method) ? ops[request.method] : undefined
  if (op === undefined) {
    const allow = allowedMethods(resource)
    return { refused: adminError('methodNotAllowed', 'Method not allowed', { allow }) }
  }
  if (op === 'setScenario') return readScenario(request, session)
  if (op === 'setData') return readPatch(request, session)
  if (op === 'readHar') {
    const origin = harOrigin(request)
    if (origin === undefined)
      return {
        refused: adminError(
          'badRequest',
          'Malformed request: baseUrl must be an http or https URL without credentials, query or fragment, such as https://api.example.test',
        ),
      }
    return { command: { op, session, origin } }
  }
  return { command: { op, session } }
}

async function readScenario(request: MockRequest, session: string): Promise<ParsedAdmin> {
  const body = await readJsonBody(
    request,
    ADMIN_BODY_LIMIT,
    'a JSON scenario such as {"kind":"unavailable"}',
  )
  if (!('value' in body)) return { refused: body }
  try {
    // Built once to check it whole: a scenario its state cannot be made from is refused here.
    const { scenario } = new ScenarioState(body.value as never)
    return { command: { op: 'setScenario', session, scenario } }
  } catch (cause) {
    return { refused: adminError('badRequest', `Invalid scenario: ${(cause as Error).message}`) }
  }
}

async function readPatch(request: MockRequest, session: string): Promise<ParsedAdmin> {
  const body = await readJsonBody(
    request,
    DATA_LIMITS.patchBytes,
    'a JSON patch such as {"disciplines":[{"name":"Tiny","domain_ids":["…"]}]}',
  )
  if (!('value' in body)) return { refused: body }
  // Here, not only where it is applied: a command crosses to other processes (`--workers`) in
  // V8's serialization, which recursion past a few thousand levels overflows (a 500).
  const tooDeep = findTooDeepPatch(body.value)
  if (tooDeep !== undefined) return { refused: invalidPatchAnswer(tooDeep) }
  // A field given twice is in the value once: the text is where to see it, as for a fixture file.
  const issues = createIssueList()
  addRepeatedFields(body.text, body.value, issues)
  if (issues.count > 0) return { refused: invalidPatchAnswer(issues.toError('patch')) }
  return { command: { op: 'setData', session, patch: body.value } }
}

/**
 * The origin a HAR file puts in front of journaled paths: `?baseUrl=` when given (a TLS server,
 * or a proxy in front), `undefined` when that is no http(s) prefix; else `http://` and the `Host`
 * the admin request was sent to.
 */
function harOrigin(request: MockRequest): string | undefined {
  const query = request.url.indexOf('?')
  const given =
    query === -1 ? null : new URLSearchParams(request.url.slice(query + 1)).get('baseUrl')
  if (given !== null) return findUrlPrefix(given)
  return findUrlPrefix(`http://${request.header('host') || 'localhost'}`) ?? 'http://localhost'
}
