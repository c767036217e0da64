import { malform, reset, slowBody, truncate, type BodyFaultOptions } from './body-faults.js'
import type { KindOption } from './kind-options.js'
import { createNoAnswer, type Answers } from './responses.js'

/**
 * Where a kind applies in the resolver's order of checks (docs/spec-choices.md):
 * - `before-key`: outages and delays stand in front of the service, so they apply whatever the key;
 * - `after-key`: data states, so a request without a key still gets 401 first;
 * - `after-lookup`: the record's own answer, changed (a body cut short, say).
 */
export type Phase = 'before-key' | 'after-key' | 'after-lookup'

/** The answers a kind may answer with, built once per resolver (its `statuses` and `cors`). */
export interface KindAnswers {
  readonly unauthorized: Answers
  readonly notFound: Answers
  readonly serverError: Answers
  readonly unavailable: Answers
  readonly rateLimited: Answers
}

interface KindBase {
  /** Prism's `Prefer: code=…` that asks for it, if any. */
  readonly preferCode?: string
  /**
   * Whether seeded `faults` draw it: by `default`, or only when `faults.kinds` lists it. A drawn
   * kind applies in its own phase (a body fault still lets a request without a key get 401).
   */
  readonly fault?: 'default' | 'listed'
  /** The kind options it reads, if any: rows of `KIND_OPTIONS` (`bytes`, `duration`). */
  readonly options?: readonly KindOption[]
}

/** A kind that answers instead of the usual answer, or lets it through (`'usual'`, maybe delayed). */
interface ReplacingKind extends KindBase {
  readonly phase: 'before-key' | 'after-key'
  readonly answer: ((answers: KindAnswers) => Answers) | 'usual'
}

/** A kind that changes the record's own answer (found or not), per request. */
interface TransformingKind extends KindBase {
  readonly phase: 'after-lookup'
  readonly answer: (usual: Answers, options: BodyFaultOptions) => Answers
}

/** One row of the scenario vocabulary. */
export type KindSpec = ReplacingKind | TransformingKind

const NETWORK_ERROR = createNoAnswer('network-error')
const HANG = createNoAnswer('hang')
const EMPTY = createNoAnswer('empty')

/**
 * The scenario vocabulary: what a matching request gets instead of the usual answer. The names are
 * part of the public contract (docs/scenarios.md), the same in every transport; `--help`, the
 * OpenAPI document and `Prefer` read this table. A new kind is one row here; an option it reads is
 * one row of `KIND_OPTIONS` (kind-options.ts); a new way of delivering an answer is one `Delivery`
 * mode, which every adapter must then handle.
 */
export const KINDS = {
  unauthorized: {
    phase: 'before-key',
    preferCode: '401',
    answer: (answers) => answers.unauthorized,
  },
  'not-found': { phase: 'after-key', preferCode: '404', answer: (answers) => answers.notFound },
  'server-error': {
    phase: 'before-key',
    preferCode: '500',
    fault: 'default',
    answer: (answers) => answers.serverError,
  },
  unavailable: {
    phase: 'before-key',
    preferCode: '503',
    fault: 'default',
    answer: (answers) => answers.unavailable,
  },
  // As a gateway in front of the service answers: whatever the key.
  'rate-limited': {
    phase: 'before-key',
    preferCode: '429',
    fault: 'listed',
    answer: (answers) => answers.rateLimited,
  },
  'network-error': { phase: 'before-key', fault: 'default', answer: () => NETWORK_ERROR },
  hang: { phase: 'before-key', fault: 'listed', answer: () => HANG },
  delay: { phase: 'before-key', answer: 'usual' },
  truncated: { phase: 'after-lookup', fault: 'listed', options: ['bytes'], answer: truncate },
  reset: { phase: 'after-lookup', fault: 'listed', options: ['bytes'], answer: reset },
  'slow-body': { phase: 'after-lookup', fault: 'listed', options: ['duration'], answer: slowBody },
  malformed: { phase: 'after-lookup', fault: 'listed', options: ['bytes'], answer: malform },
  empty: { phase: 'before-key', fault: 'listed', answer: () => EMPTY },
} as const satisfies Readonly<Record<string, KindSpec>>

export type ScenarioKind = keyof typeof KINDS

/** The kinds a seeded fault can draw (`fault` set on the row). */
export type FaultKind = {
  [K in ScenarioKind]: (typeof KINDS)[K] extends { readonly fault: string } ? K : never
}[ScenarioKind]

/** The row of a kind, as the general `KindSpec`. */
export function kindSpec(kind: ScenarioKind): KindSpec {
  return KINDS[kind]
}
