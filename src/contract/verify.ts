import { ENDPOINT_LIST, type Collection } from '../http/endpoints.js'
import { BoundReachedError, createServiceClient } from './client.js'
import { crawl, LookupSet, type Lookup } from './lookups.js'
import { measureLatency, type Latency } from './latency.js'
import { observe, type Observation } from './observe.js'
import {
  resolveCrawl,
  resolveServiceOptions,
  type ResolvedServiceOptions,
  type VerifyOptions,
} from './options.js'
import { createUnknownSlug, runProbes } from './probes.js'
import { createRedactor, redactDeep, withRedactedErrors } from './redact.js'
import { evaluateRules, type RuleId, type RuleResult } from './rules.js'
import { TopicStore, topicFolding } from './topic-store.js'

/** What `verifyService` found: each rule, each observation, and what the run cost. */
export interface VerifyReport {
  /** The base URL checked. */
  readonly target: string
  /** The key is never reported; its length helps tell a truncated secret. */
  readonly key: { readonly length: number }
  /** `rate` is `Infinity` for no limit: `null` in the JSON `verify --report` writes. */
  readonly requests: { readonly sent: number; readonly maxRequests: number; readonly rate: number }
  /** Records looked up, by the option that names their endpoint's slugs: `disciplines`, `subDisciplines`. */
  readonly records: Readonly<Record<'disciplines' | 'subDisciplines', number>>
  /** The random slug the not-found probes used. */
  readonly unknownSlug: string
  readonly rules: readonly RuleResult[]
  readonly observations: readonly Observation[]
  /**
   * How long the record lookups answered 200 took, to status and headers, in whole milliseconds:
   * `{ median, p99 }` is ready to paste into a scenario's `delay`. `null` when none was answered.
   */
  readonly latency: Latency | null
  /** How long the run took, in whole milliseconds: the JUnit file's `time`. */
  readonly duration: number
  /** The rules that failed: breaking drift between the service and the spec the mock follows. */
  readonly failed: readonly RuleId[]
  readonly passed: boolean
}

/**
 * Holds a running service against the spec and the mock: looks up the slugs given (and, with
 * `crawl`, up to that many records linked to them), probes the errors and what the spec leaves
 * unsaid, and reports each rule and observation. Read-only, one request at a time, within
 * `rate` and `maxRequests`. Throws `UnreachableError` when the service cannot be asked, and
 * `TooLargeError` when its data does not fit the memory budget (`budget.ts`). No string of the
 * report or of an error carries the key, in any encoding (`redact.ts`).
 *
 * @example
 * const report = await verifyService({ target: 'https://staging.example.com', apiKey, disciplines: ['history'], crawl: 20 })
 * if (!report.passed) console.log(report.failed)
 */
export async function verifyService(options: VerifyOptions): Promise<VerifyReport> {
  const resolved = resolveServiceOptions(options)
  const limit = resolveCrawl(options.crawl)
  const redactor = createRedactor(resolved.apiKey)
  // A service may echo what it was sent: no string of the report carries the key.
  return redactDeep(await withRedactedErrors(redactor, () => check(resolved, limit)), redactor)
}

async function check(resolved: ResolvedServiceOptions, limit: number): Promise<VerifyReport> {
  const started = performance.now()
  const client = createServiceClient(resolved)
  // Each sub-discipline answer's topics folded as it arrives, when they are plain, as `record`
  // does: a million topics are then a few thousand strings, not objects that every collection of
  // the young generation copies. The report is the same either way (test/verify/verify-fold.test.ts).
  const store = topicFolding.enabled ? new TopicStore({ observeNames: true }) : undefined
  const lookups = new LookupSet(store)
  const start = await lookUpGiven(resolved, client, lookups)
  // The probes need a record that exists: the first slug given that was found.
  const found = start.find((lookup) => lookup.exchange.status === 200)
  const known = found
    ? { collection: found.collection, slug: found.slug }
    : startSlugs(resolved)[0]!
  const unknownSlug = createUnknownSlug()
  const probes = await runProbes(client, known, unknownSlug)
  await crawl(client, lookups, start, limit)
  const all = lookups.all()
  let folded = store?.isPlain ? store : undefined
  let rules = folded && evaluateRules(all, probes, undefined, folded)
  if (rules === undefined || rules.some((rule) => rule.status === 'fail')) {
    // Today's pipeline, the one truth for every failure: the folded answers' topics given back.
    store?.restore(all.map((lookup) => lookup.body))
    folded = undefined
    rules = evaluateRules(all, probes)
  }
  const failed = rules.filter((rule) => rule.status === 'fail').map((rule) => rule.id)
  return {
    target: resolved.base,
    key: { length: resolved.apiKey.length },
    requests: { sent: client.sent, maxRequests: resolved.maxRequests, rate: resolved.rate },
    records: countRecords(all),
    unknownSlug,
    rules,
    observations: observe(all, probes, client.waits, folded),
    latency: measureLatency(all),
    duration: Math.round(performance.now() - started),
    failed,
    passed: failed.length === 0,
  }
}

/** The slugs given, disciplines first, each with its collection. */
export function startSlugs(
  options: ResolvedServiceOptions,
): { collection: Collection; slug: string }[] {
  return ENDPOINT_LIST.flatMap(({ collection, startOption }) =>
    options[startOption].map((slug) => ({ collection, slug })),
  )
}

/** Looks up the slugs given, up to the request bound. */
export async function lookUpGiven(
  options: ResolvedServiceOptions,
  client: ReturnType<typeof createServiceClient>,
  lookups: LookupSet,
): Promise<Lookup[]> {
  const start: Lookup[] = []
  for (const { collection, slug } of startSlugs(options)) {
    try {
      start.push(await lookups.fetch(client, collection, slug))
    } catch (error) {
      if (error instanceof BoundReachedError) break
      throw error
    }
  }
  return start
}

function countRecords(lookups: readonly Lookup[]): VerifyReport['records'] {
  const ok = lookups.filter((lookup) => lookup.exchange.status === 200)
  return Object.fromEntries(
    ENDPOINT_LIST.map(({ collection, startOption }) => [
      startOption,
      ok.filter((lookup) => lookup.collection === collection).length,
    ]),
  ) as VerifyReport['records']
}
