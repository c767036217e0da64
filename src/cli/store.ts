import type { Upstream } from '../http/upstream.js'
import type { MockOptions } from '../http/options.js'
import { startReplica, type Replica } from '../server/replica/replica.js'
import type { StoreAddress } from '../server/replica/store-address.js'
import { StoreFailure } from '../server/replica/store-faults.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'

/**
 * `serve --store`: joins the replicas sharing the Redis store, or throws the one line that says
 * why it cannot (a server that cannot reach its store does not start). A store that has not
 * answered after a second is said on stderr (`sayWaiting`: where the line goes; a worker hands it
 * to its primary). Its own file in the CLI build (store.cjs, with the Redis client), required
 * only with `--store`.
 */
export async function joinStore(
  options: MockOptions,
  store: StoreAddress,
  io: CliIo,
  sayWaiting?: (line: string) => void,
  upstream?: Upstream,
): Promise<Replica> {
  const warn = (line: string) => io.stderr(`taxonomy-mock: ${line}`)
  try {
    return await startReplica(options, store, warn, sayWaiting ?? warn, upstream)
  } catch (error) {
    const cause = error as NodeJS.ErrnoException
    // Reached, and a step of start-up refused (an ACL user without a command, a wrong-typed key).
    if (error instanceof StoreFailure && error.kind === 'refused')
      throw new RuntimeError(
        `the session store at ${store.display} refused a command at start (${cause.message})`,
      )
    throw new RuntimeError(
      `cannot reach the session store at ${store.display} (${cause.code ?? cause.message})`,
    )
  }
}
