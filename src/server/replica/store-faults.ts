import { replaceControls } from '../../core/shown-text.js'
import type { StoreCounts } from '../../http/metrics.js'
import type { StoreAddress } from './store-address.js'

/**
 * A call to the store that failed although the connection is up: no answer within the address's
 * time bound (a stalled or paused Redis), or an error reply (a key of the wrong type). What needed
 * it is answered 503, as while the store is unreachable.
 */
export class StoreFailure extends Error {
  constructor(
    readonly kind: 'timeout' | 'refused',
    message: string,
  ) {
    super(message)
  }
}

/** `pending`, or a timeout failure once `ms` passed (`pending` is then left to settle unheard). */
export async function bounded<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreFailure('timeout', `no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([pending, late])
  } finally {
    clearTimeout(timer)
    pending.catch(() => {})
  }
}

/** What a replica drops as malformed: a pub/sub message, a key (a session id), or a value. */
export type MalformedKind = 'message' | 'key' | 'value'

/** How long a kind of failure stays unsaid after it was said: a stalled store fails every call. */
const FAILURE_QUIET_MS = 60_000

/**
 * What a replica dropped or failed at its store: counted for `/__metrics`, and said on stderr:
 * the first malformed input of each kind (the metric counts the rest), and each kind of failure
 * at most once a minute.
 */
export class StoreFaults {
  readonly #malformed: Record<MalformedKind, number> = { message: 0, key: 0, value: 0 }
  readonly #failures: Record<StoreFailure['kind'], number> = { timeout: 0, refused: 0 }
  /** Admin writes a listener did not confirm in time: each counted, though said once a minute. */
  #unconfirmed = 0
  // When each kind of failure (a timeout, an error reply's code) was said last.
  readonly #said = new Map<string, number>()
  /**
   * While a replica starts, a failure ends start-up, and the CLI's one line says it: counted here,
   * not said, since no request gets a 503 from a replica that does not start.
   */
  #starting: boolean

  constructor(
    readonly address: StoreAddress,
    readonly warn: (line: string) => void,
    { starting = false }: { readonly starting?: boolean } = {},
  ) {
    this.#starting = starting
  }

  /** Start-up is over: failures are said from now on. */
  started(): void {
    this.#starting = false
  }

  malformed(kind: MalformedKind, detail: string): void {
    if (++this.#malformed[kind] > 1) return
    this.warn(
      `dropped a malformed ${kind} from the session store at ${this.address.display} (${detail}); ` +
        `others are counted in taxonomy_mock_store_malformed_total{kind="${kind}"}, not said`,
    )
  }

  failed(failure: StoreFailure): void {
    this.#failures[failure.kind]++
    if (this.#starting) return
    // An error reply starts with its code (WRONGTYPE, ERR, OOM...): one line each.
    const said = failure.kind === 'timeout' ? 'timeout' : failure.message.split(' ', 1)[0]!
    const now = performance.now()
    const last = this.#said.get(said)
    if (last !== undefined && now - last < FAILURE_QUIET_MS) return
    if (this.#said.size >= 32) this.#said.clear()
    this.#said.set(said, now)
    const where = `the session store at ${this.address.display}`
    this.warn(
      failure.kind === 'timeout'
        ? `${where} did not answer within ${this.address.timeout} ms; requests that need it get 503 meanwhile`
        : `${where} refused a command (${oneLine(failure.message)}); requests that need it get 503 while it does`,
    )
  }

  /**
   * Listeners on the changes channel that did not confirm an admin write within the time bound:
   * counted per write, said at most once a minute, as a failure is.
   */
  unconfirmed(missing: number, channel: string): void {
    this.#unconfirmed++
    const now = performance.now()
    const last = this.#said.get('unconfirmed')
    if (last !== undefined && now - last < FAILURE_QUIET_MS) return
    this.#said.set('unconfirmed', now)
    const listeners = missing === 1 ? '1 listener' : `${missing} listeners`
    this.warn(
      `${listeners} on ${channel} did not confirm an admin write within ${this.address.timeout} ms ` +
        `(a stopped or busy replica, or a client that is no replica subscribed there): the write ` +
        `holds, though a request on such a replica may not find it until its notice comes`,
    )
  }

  snapshot(): StoreCounts {
    return {
      malformed: { ...this.#malformed },
      failures: { ...this.#failures },
      unconfirmed: this.#unconfirmed,
    }
  }
}

/** An error reply on one line: any control character in it (a terminal's escapes) as U+FFFD. */
function oneLine(text: string): string {
  const line = replaceControls(text.replace(/\s+/g, ' ')).trim()
  return line.length > 200 ? `${line.slice(0, 200)}...` : line
}
