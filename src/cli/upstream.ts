import type { Hash } from 'node:crypto'
import type { Stats } from 'node:fs'
import { stat } from 'node:fs/promises'
import { captureRecord } from '../contract/capture.js'
import { SERVICE_DEFAULTS, SERVICE_LIMITS } from '../contract/options.js'
import { createUpstreamSource } from '../contract/upstream.js'
import { createUpstreamExchange } from '../server/upstream-exchange.js'
import { quote } from '../core/field-name.js'
import { noteDataFile } from '../core/identity.js'
import { loadTaxonomy } from '../core/load.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import { toOneLine, toQuoted, toShownName } from '../core/shown-text.js'
import type { Taxonomy } from '../core/store.js'
import { FIXTURE_FORMAT, LEVELS } from '../core/types.js'
import { findEndpoint, type Collection } from '../http/endpoints.js'
import type { Resolver } from '../http/resolver.js'
import type { Upstream, UpstreamSource } from '../http/upstream.js'
import type { ServeArgs, UpstreamArgs } from './args.js'
import { counted } from './counted.js'
import { findDescriptorPath } from './descriptor-paths.js'
import type { CliIo } from './io.js'
import { shellWord } from './shell-word.js'
import { UsageError } from './usage-error.js'
import { writeOutputFile } from './write-file.js'

/** `serve --upstream`'s part: the source the resolver asks, and the captures it writes. */
export interface ServeUpstream {
  readonly upstream: Upstream
  /** The resolver whose data captures replace, once it is made. */
  attach(resolver: Resolver): void
  /** Resolves once no capture is being written. */
  idle(): Promise<void>
  /** A second stop signal: the capture under way ends, nothing written, and none queued starts. */
  cut(): void
  /** Captures a record relayed with 200 (a worker handed it over). */
  capture(collection: Collection, slug: string): void
  /** Says on stderr that the upstream stopped or started answering, unless it was said last (a worker found it so). */
  reachable(reachable: boolean, reason: string): void
}

/** How a process of `serve --workers` takes part in captures. */
export interface CaptureRole {
  /** A worker: hands each capture to the primary, which alone writes the file. */
  readonly delegate?: (collection: Collection, slug: string) => void
  /** The primary: once a capture is written and served, the workers serve it too. */
  readonly afterCapture?: () => Promise<void>
  /** A worker: hands each change in whether the upstream answers to the primary, which says it. */
  readonly tellReachable?: (reachable: boolean, reason: string) => void
}

/**
 * The real service as `serve` stands in front of it: each record the data lacks is fetched with the
 * key (`createUpstreamSource`); that the upstream stops answering is said once on stderr, and once
 * that it answers again, by the one process that prints for the server (a `--workers` primary for
 * what each of its workers found). With `--on-miss capture`, each record relayed with 200 is then recorded
 * with `record`'s closure rules, added to the data and written to the `--data` file, one capture at
 * a time, by one process (a `--workers` primary for all its workers: `role`).
 */
export function prepareUpstream(
  args: UpstreamArgs,
  data: string | undefined,
  io: CliIo,
  role: CaptureRole = {},
): ServeUpstream {
  const { target, shownTarget, apiKey, onMiss, timeout } = args
  // What was said last: each process's source says a change once, and workers find it alike.
  let saidReachable = true
  const say = (reachable: boolean, reason: string) => {
    if (reachable === saidReachable) return
    saidReachable = reachable
    io.stderr(
      reachable
        ? `taxonomy-mock: the upstream ${shownTarget} answers again`
        : `taxonomy-mock: the upstream gave no answer (${reason}); answering 502 until it does`,
    )
  }
  const fetched = createUpstreamSource({
    target,
    apiKey,
    timeout,
    exchange: createUpstreamExchange(),
    onReachable: role.tellReachable ?? say,
  })
  const captures = new Captures(args, data!, io, role.afterCapture)
  const capture =
    role.delegate ?? ((collection: Collection, slug: string) => captures.add(collection, slug))
  const source: UpstreamSource =
    onMiss !== 'capture'
      ? fetched
      : {
          lookUp: async (lookup) => {
            const result = await fetched.lookUp(lookup)
            if (result.kind === 'answer' && result.answer.status === 200)
              capture(lookup.collection, lookup.slug)
            return result
          },
        }
  const captureCommand =
    data === undefined
      ? undefined
      : `taxonomy-mock serve --data ${shellWord(data)} --upstream ${shellWord(shownTarget)} --on-miss capture${keptFlags(args)}`
  return {
    upstream: { onMiss, source, secrets: [apiKey], ...(captureCommand ? { captureCommand } : {}) },
    attach: (resolver) => captures.attach(resolver),
    idle: () => captures.idle(),
    cut: () => captures.cut(),
    capture,
    reachable: say,
  }
}

/**
 * The flags of this server the capture command keeps, when not their defaults: its `--order` (a
 * capture served in another order refuses the records the service orders as this one serves them)
 * and `--upstream-timeout` (a service this server waits longer for).
 */
function keptFlags({ order, timeout }: UpstreamArgs): string {
  const flags = order === undefined || order === 'name' ? '' : ` --order ${order}`
  return timeout === SERVICE_DEFAULTS.timeout ? flags : `${flags} --upstream-timeout ${timeout}`
}

/**
 * The data `serve --upstream` starts from: none given, or a capture's file not made yet, is empty
 * data (every record is then a miss); else `undefined`, and the `--data` file is read as usual.
 */
export async function emptyUpstreamData(args: ServeArgs): Promise<Taxonomy | undefined> {
  if (args.upstream === undefined) return undefined
  if (args.data !== undefined) {
    if (args.upstream.onMiss !== 'capture') return undefined
    const info = await stat(args.data).catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? null : undefined,
    )
    refuseStreamedData(args.data, info)
    if (info !== null) return undefined
  }
  return loadTaxonomy({
    format: FIXTURE_FORMAT,
    seed: null,
    ...Object.fromEntries(LEVELS.map((level) => [level, []])),
  })
}

/**
 * A capture replaces the `--data` file whole, which only a regular file (or none yet) can be: a
 * descriptor path (`/dev/stdin < data.json`) is appended to, leaving two fixtures in the file behind
 * it, and a FIFO waits for a reader that may never come, holding up every later capture and the
 * stop. A folder is left to the read, which says so.
 */
function refuseStreamedData(file: string, info: Stats | null | undefined): void {
  const streamed =
    findDescriptorPath(file) !== undefined ||
    (info != null && !info.isFile() && !info.isDirectory())
  if (streamed)
    throw new UsageError(
      `--on-miss capture rewrites the --data file, and ${toQuoted(file)} is not a regular file (a descriptor, FIFO, device or socket): capture into a file`,
    )
}

/**
 * How long a record whose capture failed is not captured again: each try may send hundreds of
 * requests to the real service, and a test asking for the record in a loop would send them all.
 */
const CAPTURE_RETRY_PAUSE_MS = 60_000
/** The failed captures remembered, at most: a bounded cost for any client. */
const MAX_FAILED_CAPTURES = 1_000

/**
 * Captures waiting to be written, one at a time; a record asked for again while queued is queued
 * once, and one whose capture failed is not tried again for {@link CAPTURE_RETRY_PAUSE_MS}.
 */
class Captures {
  #resolver: Resolver | undefined
  #queued = new Set<string>()
  #failedAt = new Map<string, number>()
  #done: Promise<void> = Promise.resolve()
  /** Aborted by a second stop signal: the capture under way ends, and none queued starts. */
  readonly #cut = new AbortController()

  constructor(
    readonly args: UpstreamArgs,
    readonly file: string,
    readonly io: CliIo,
    readonly afterCapture: (() => Promise<void>) | undefined,
  ) {}

  attach(resolver: Resolver): void {
    this.#resolver = resolver
  }

  add(collection: Collection, slug: string): void {
    const key = `${collection}/${slug}`
    if (this.#queued.has(key)) return
    const failedAt = this.#failedAt.get(key)
    if (failedAt !== undefined && performance.now() - failedAt < CAPTURE_RETRY_PAUSE_MS) return
    this.#queued.add(key)
    this.#done = this.#done.then(() =>
      this.#capture(collection, slug).then((failed) => {
        this.#queued.delete(key)
        if (!failed) return void this.#failedAt.delete(key)
        if (this.#failedAt.size >= MAX_FAILED_CAPTURES) this.#failedAt.clear()
        this.#failedAt.set(key, performance.now())
      }),
    )
  }

  idle(): Promise<void> {
    return this.#done
  }

  /** Ends the capture under way (its requests are abandoned, nothing is written) and the queue. */
  cut(): void {
    this.#cut.abort()
  }

  /**
   * Records the record, adds it to the data, writes the file, serves the data; never rejects.
   * Answers whether it failed.
   */
  async #capture(collection: Collection, slug: string): Promise<boolean> {
    const resolver = this.#resolver
    if (resolver === undefined || this.#cut.signal.aborted) return false
    const { noun } = findEndpoint(collection)!
    // The slug is any client's: quoted and cut, with nothing a terminal acts on left raw.
    const what = `${noun} ${quote(slug)}`
    const cut = this.#cut.signal
    try {
      const capture = await captureRecord(resolver.options, collection, slug, {
        target: this.args.target,
        apiKey: this.args.apiKey,
        timeout: this.args.timeout,
        // Each request ends at its time bound or at a cut, whichever comes first.
        fetch: (request, init?: { signal?: AbortSignal }) =>
          fetch(request, { signal: init?.signal ? AbortSignal.any([init.signal, cut]) : cut }),
        // One request at a time, as soon as the one before is answered: a capture is a handful.
        rate: Number.POSITIVE_INFINITY,
        maxRequests: SERVICE_LIMITS.maxRequests.max,
      })
      if (capture === undefined) return false
      // The data names its file by the SHA-256 of the bytes written, as a start from the file would
      // (`export --from URL --data FILE` checks it).
      const { createHash } = await import('node:crypto')
      const hash = createHash('sha256')
      await writeOutputFile(this.file, hashing(fixtureJsonChunks(capture.taxonomy), hash), '--data')
      noteDataFile(capture.taxonomy, hash.digest('hex'))
      resolver.replaceTaxonomy(capture.taxonomy)
      await this.afterCapture?.()
      // Each level's noun in the singular (`sub_disciplines`: `sub-discipline`), as counted takes it.
      const added = LEVELS.filter((level) => capture.added[level] > 0)
        .map((level) => counted(capture.added[level], level.replace('_', '-').slice(0, -1)))
        .join(', ')
      // The file as every line names a given one: a name with a control is quoted, escaped.
      this.io.stdout(
        `taxonomy-mock: captured ${what} into ${toShownName(this.file)} (${added || 'links only'}) in ${counted(capture.requests, 'request')}`,
      )
      return false
    } catch (error) {
      if (cut.aborted) {
        this.io.stderr(`taxonomy-mock: the capture of ${what} stopped; nothing written`)
        return false
      }
      this.io.stderr(
        `taxonomy-mock: cannot capture ${what}: ${toOneLine(String((error as Error).message))}; not tried again for ${CAPTURE_RETRY_PAUSE_MS / 1_000} s`,
      )
      return true
    }
  }
}

/** `chunks` as they are, each added to `hash` as it is taken. */
function* hashing(chunks: Iterable<string>, hash: Hash): Iterable<string> {
  for (const chunk of chunks) {
    hash.update(chunk)
    yield chunk
  }
}
