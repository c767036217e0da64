import { serialize } from 'node:v8'
import type { AnsweredEntry } from '../../http/journal.js'
import { journalPartOf, mergeJournalParts, type JournalPart } from '../../http/journal-part.js'
import type { MockOptions } from '../../http/options.js'
import { createGatheringResolver, type Resolver } from '../../http/resolver.js'
import type { Upstream } from '../../http/upstream.js'
import { createMessageAnswers } from '../../http/responses.js'
import { DEFAULT_SESSION } from '../../http/sessions.js'
import { JournalPartsMissing, RedisSessionStore, STORE_UNAVAILABLE } from './redis-store.js'
import type { StoreAddress } from './store-address.js'
import { bounded, StoreFaults } from './store-faults.js'
import { loadStoreClient, StoreLink, type Notice } from './store-link.js'

/** A server's resolver when it is one of several replicas sharing their sessions through Redis. */
export interface Replica {
  readonly resolver: Resolver
  /** Closes the store's connections. */
  close(): Promise<void>
}

/** Bodies larger than this are sent to another replica's journal read without them. */
const SENT_BODY_BYTES = 64 * 1024
/**
 * Redis' output buffer limit for a subscriber when it does not say its own: every part of one
 * journal read waits there for the replica that asked, which Redis cuts off past it.
 */
const SUBSCRIBER_BUFFER_BYTES = 32 * 1024 * 1024
/** How long start-up waits for the store before it says so. */
const SAY_WAITING_MS = 1_000

/**
 * Connects to the store, takes the sessions' state from it, and answers through a resolver whose
 * sessions live there ({@link RedisSessionStore}). A journal read asks every replica for its part
 * through Redis and merges them. Whatever needs the store and cannot have it (unreachable, past
 * its time bound, an error reply) is answered 503; what is read from it is parsed as untrusted
 * input, and what is malformed is dropped and counted.
 */
export async function startReplica(
  options: MockOptions,
  address: StoreAddress,
  warn: (line: string) => void,
  sayWaiting: (line: string) => void = warn,
  upstream?: Upstream,
): Promise<Replica> {
  await loadStoreClient()
  // Start-up stays silent while the store answers; one that does not is said after a second.
  const waiting = setTimeout(
    () =>
      sayWaiting(
        `waiting for the session store at ${address.display} (each step gives up after ${address.timeout} ms; Ctrl+C or SIGTERM stops)`,
      ),
    SAY_WAITING_MS,
  )
  try {
    const faults = new StoreFaults(address, warn, { starting: true })
    // This replica's journal reads waiting for other replicas' parts, by ask.
    const reads = new Map<string, (part: JournalPart | undefined) => void>()
    let asks = 0
    let store: RedisSessionStore | undefined
    let loading: Promise<unknown> = Promise.resolve()
    const link = await StoreLink.connect(address, faults, {
      onNotice: (notice) => store && heard(store, notice),
      onReply: ({ ask, part }) => reads.get(ask)?.(part),
      onReconnect: () => (loading = loading.then(() => store?.load()).catch(() => {})),
    })
    // What the answer bodies of one journal read's parts take together at most: a quarter of
    // Redis' limit (the rest for their entries), shared by the replicas that answer. Read before
    // the store exists, so that no notice is heard without it.
    const partsBodyBytes = ((await link.subscriberBufferLimit()) ?? SUBSCRIBER_BUFFER_BYTES) / 4
    const resolver = createGatheringResolver(options, {
      ...(upstream ? { upstream } : {}),
      store: (...memory) => (store = new RedisSessionStore(memory, link)),
      // Waits for as many parts as replicas were asked, within the time bound; missing one, it
      // fails (a part of the journal would pass for the whole: the caller is told to retry).
      journal: async (session, own) => {
        const ask = `${link.replica}:${++asks}`
        const parts: (JournalPart | undefined)[] = []
        let others = Infinity
        const all = new Promise<void>((resolve) =>
          reads.set(ask, (part) => {
            if (parts.push(part) >= others) resolve()
          }),
        )
        try {
          const bytes = Math.floor(partsBodyBytes / Math.max(1, (await link.replicas()) - 1))
          others = (await link.ask(session, ask, bytes)) - 1
          if (parts.length < others)
            await bounded(all, address.timeout).catch(() => {
              // Redis answered: another replica (stopped, or busy past the bound) did not.
              throw new JournalPartsMissing(others - parts.length, address.timeout)
            })
        } finally {
          reads.delete(ask)
        }
        parts.push(epochPart(own))
        return mergeJournalParts(parts.filter((part) => part !== undefined))
      },
      metrics: async (own) => ({ ...own, store: faults.snapshot() }),
    })

    store!.unavailable = createMessageAnswers(
      'unavailable',
      STORE_UNAVAILABLE,
      resolver.options.cors,
    ).get

    /** A notice from Redis: a session changed elsewhere, or a replica asks for journal parts. */
    function heard(shared: RedisSessionStore, notice: Notice): void {
      if (notice.op === 'journal') {
        if (notice.ask.startsWith(`${link.replica}:`)) return
        const part = epochPart(journalPartOf(shared.find(notice.session)))
        const bodyBytes = Math.min(notice.bytes, partsBodyBytes)
        const bytes = serialize({ ask: notice.ask, part: part && sendable(part, bodyBytes) })
        void link.reply(notice.ask.split(':', 1)[0]!, bytes).catch(() => {})
        return
      }
      if (notice.from === link.replica) return
      // Made afresh, deleted or its journal cleared: this process's part of the journal goes too.
      const { op, session } = notice
      if (op === 'createSession' || op === 'deleteSession' || op === 'clearJournal')
        void shared.applyHere({ op, session })
      // Saved again: the store lost its data, which this replica may not have found yet.
      if (op === 'restore') shared.savedElsewhere()
      shared.markStale(session, {
        saves: op === 'setScenario' || op === 'setData' || op === 'restore',
      })
    }

    // The default session's scenario of the `scenario` option, counted in Redis by every replica.
    const scenario = store!.default.scenario?.scenario
    if (scenario) await link.restore(DEFAULT_SESSION, JSON.stringify(scenario), '')
    loading = store!.load()
    await loading
    faults.started()
    return {
      resolver,
      close: () => link.close(),
    }
  } finally {
    clearTimeout(waiting)
  }
}

/** A journal part on the clock every replica shares: milliseconds since the epoch. */
function epochPart(part: JournalPart | undefined): JournalPart | undefined {
  return part && { ...part, origin: performance.timeOrigin + part.origin }
}

/**
 * A part as it crosses to another replica: no delay, no body past {@link SENT_BODY_BYTES}, and
 * bodies of `bodyBytes` at most together, the newest first (a body several entries share counts
 * once: it is sent once); an older one past them is left out.
 */
function sendable(part: JournalPart, bodyBytes: number): JournalPart {
  const sent = new Set<Uint8Array>()
  let spent = 0
  const answered = part.answered
    .toReversed()
    .map(({ entry, answer }): AnsweredEntry => {
      if (answer === undefined) return { entry, answer }
      const { delay: _delay, ...kept } = answer
      const { body } = answer
      let fits = body !== null && body.byteLength <= SENT_BODY_BYTES
      if (fits && !sent.has(body!)) {
        fits = spent + body!.byteLength <= bodyBytes
        if (fits) {
          sent.add(body!)
          spent += body!.byteLength
        }
      }
      return { entry, answer: { ...kept, body: fits ? body : null } }
    })
    .reverse()
  return { ...part, answered }
}
