import type { ScenarioKind } from '../http/kinds.js'
import { DEFAULT_STATUSES, isErrorStatus } from '../http/options.js'
import type { Exchange, Wait } from './client.js'
import type { Lookup } from './lookups.js'
import {
  matchingOrder,
  NESTED_ARRAYS,
  observeOrders,
  type FoldedTopics,
  type NestedArray,
  type ObservedOrder,
} from './order.js'
import type { Probes } from './probes.js'
import { isErrorAnswer, NOT_FOUND_MESSAGE, UNAUTHORIZED_MESSAGE } from './rules.js'

/** The scenario that answers as a service did when it asked for a wait (the only statuses retried). */
const RETRY_SCENARIOS = {
  429: 'rate-limited',
  503: 'unavailable',
} as const satisfies Record<429 | 503, ScenarioKind>

/**
 * Something the spec leaves unsaid, as the service does it and as the mock does it now, with the
 * option that makes the mock match where the kit has one.
 */
export interface Observation {
  readonly id: string
  readonly question: string
  readonly service: string
  /** What the mock does with its default options. */
  readonly mock: string
  /** `option`: they differ and `option` makes the mock match; `differs`: no option can. */
  readonly verdict: 'same' | 'option' | 'differs' | 'not checked'
  readonly option?: { readonly library: string; readonly cli: string }
  readonly note?: string
}

const NOT_CHECKED = 'not checked (request bound)'

/** The observations of a run, in a fixed order; `folded`: the topics folded out of their answers. */
export function observe(
  lookups: readonly Lookup[],
  probes: Probes | undefined,
  waits: readonly Wait[],
  folded?: FoldedTopics,
): Observation[] {
  const firstRecord = lookups.find((lookup) => lookup.exchange.status === 200)?.exchange
  const orders = observeOrders(lookups, folded)
  const order = matchingOrder(orders)
  const list: Observation[] = [
    statusObservation(
      'unauthorized-status',
      'status of the key error (§5, §7)',
      probes?.noKey,
      UNAUTHORIZED_MESSAGE,
      DEFAULT_STATUSES.unauthorized,
      'unauthorized',
    ),
    statusObservation(
      'not-found-status',
      'status of the not-found error (§7)',
      probes?.unknownDiscipline,
      NOT_FOUND_MESSAGE,
      DEFAULT_STATUSES.notFound,
      'notFound',
    ),
    headerObservation(
      'www-authenticate',
      'WWW-Authenticate on the key error',
      probes?.noKey,
      'www-authenticate',
      'Bearer',
    ),
    headerObservation(
      'content-type',
      'Content-Type of a record',
      firstRecord,
      'content-type',
      'application/json',
    ),
    corsObservation(firstRecord),
    ...NESTED_ARRAYS.map((kind) => orderObservation(kind, orders[kind], order)),
    answerObservation(
      'lowercase-bearer',
      'Authorization: bearer <key> (lower case)',
      probes?.lowercaseBearer,
      'the record',
      'the mock accepts any case: an app sending `bearer` passes only against the mock',
    ),
    answerObservation(
      'trailing-slash',
      'a trailing slash after the slug',
      probes?.trailingSlash,
      'not found',
      'the mock does not normalise paths',
    ),
    answerObservation(
      'slug-case',
      'the slug in upper case',
      probes?.upperCaseSlug,
      'not found',
      'the mock matches slugs exactly',
    ),
  ]
  if (waits.length > 0) {
    const seconds = waits.reduce((sum, wait) => sum + wait.seconds, 0)
    const statuses = [...new Set(waits.map((wait) => wait.status))]
    list.push({
      id: 'rate-limit',
      question: 'rate limiting (§8: not shown)',
      service: `${waits.length} × ${statuses.join('/')} with Retry-After (${seconds} s waited)`,
      mock: 'no limit',
      verdict: 'differs',
      note: `test your retry path with the scenario ${statuses.map((status) => `\`${RETRY_SCENARIOS[status as 429 | 503]}\` (a ${status} with Retry-After)`).join(' or ')}`,
    })
  }
  return list
}

function statusObservation(
  id: string,
  question: string,
  exchange: Exchange | undefined,
  message: string,
  mockStatus: number,
  option: 'unauthorized' | 'notFound',
): Observation {
  if (!exchange)
    return { id, question, service: NOT_CHECKED, mock: String(mockStatus), verdict: 'not checked' }
  const service = `${exchange.status}${isErrorAnswer(exchange, message) ? '' : ' (not the §7 body)'}`
  if (exchange.status === mockStatus)
    return { id, question, service, mock: String(mockStatus), verdict: 'same' }
  if (!isErrorStatus(exchange.status))
    return {
      id,
      question,
      service,
      mock: String(mockStatus),
      verdict: 'differs',
      note: 'no option gives this status',
    }
  const flag = option === 'unauthorized' ? '--unauthorized-status' : '--not-found-status'
  return {
    id,
    question,
    service,
    mock: String(mockStatus),
    verdict: 'option',
    option: {
      library: `statuses: { ${option}: ${exchange.status} }`,
      cli: `${flag} ${exchange.status}`,
    },
  }
}

function headerObservation(
  id: string,
  question: string,
  exchange: Exchange | undefined,
  header: string,
  mock: string,
): Observation {
  if (!exchange) return { id, question, service: NOT_CHECKED, mock, verdict: 'not checked' }
  const service = exchange.headers.get(header) ?? '(none)'
  return compared(id, question, service, mock, 'the mock always sends its value')
}

function corsObservation(exchange: Exchange | undefined): Observation {
  const question = 'Access-Control-Allow-Origin on a record (with an Origin header)'
  if (!exchange)
    return { id: 'cors', question, service: NOT_CHECKED, mock: '*', verdict: 'not checked' }
  const service = exchange.headers.get('access-control-allow-origin') ?? '(none)'
  if (service === '*') return { id: 'cors', question, service, mock: '*', verdict: 'same' }
  if (service === '(none)')
    return {
      id: 'cors',
      question,
      service,
      mock: '*',
      verdict: 'option',
      option: { library: 'cors: false', cli: '--no-cors' },
    }
  return {
    id: 'cors',
    question,
    service,
    mock: '*',
    verdict: 'differs',
    note: 'the mock allows every origin or none',
  }
}

function orderObservation(
  kind: NestedArray,
  observed: ObservedOrder,
  order: 'name' | 'id' | 'fixture',
): Observation {
  const question = `order of ${kind} (§4.3)`
  if (observed === 'unknown')
    return {
      id: `order-${kind}`,
      question,
      service: 'unknown (no array of 2+ items)',
      mock: 'name',
      verdict: 'same',
    }
  if (observed === 'name' || (observed === 'name or id' && order === 'name'))
    return { id: `order-${kind}`, question, service: observed, mock: 'name', verdict: 'same' }
  return {
    id: `order-${kind}`,
    question,
    service: observed === 'other' ? 'neither by name nor by id' : observed,
    mock: 'name',
    verdict: 'option',
    option: { library: `order: '${order}'`, cli: `--order ${order}` },
    ...(order === 'fixture'
      ? {
          note: "'fixture' keeps a recorded file's order: serve a recording (taxonomy-mock record)",
        }
      : {}),
  }
}

/** What an answer amounts to: the record, the not-found error, a redirect, or another status. */
function answerObservation(
  id: string,
  question: string,
  exchange: Exchange | undefined,
  mock: string,
  note: string,
): Observation {
  if (!exchange) return { id, question, service: NOT_CHECKED, mock, verdict: 'not checked' }
  const service =
    exchange.status === 200
      ? 'the record'
      : isErrorAnswer(exchange, NOT_FOUND_MESSAGE)
        ? 'not found'
        : isErrorAnswer(exchange, UNAUTHORIZED_MESSAGE)
          ? 'the key error'
          : exchange.status >= 300 && exchange.status < 400
            ? `redirect ${exchange.status} to ${exchange.headers.get('location') ?? '(no Location)'}`
            : `status ${exchange.status}`
  return compared(id, question, service, mock, note)
}

/** What the service and the mock each gave, and whether they agree (`note` says why not). */
function compared(
  id: string,
  question: string,
  service: string,
  mock: string,
  note: string,
): Observation {
  return service === mock
    ? { id, question, service, mock, verdict: 'same' }
    : { id, question, service, mock, verdict: 'differs', note }
}
