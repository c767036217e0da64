import type { MockOptions } from '../http/options.js'
import { startReplica, type Replica } from '../server/replica/replica.js'
import type { StoreAddress } from '../server/replica/store-address.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'

/**
 * `serve --store`: joins the replicas sharing the Redis store, or throws the one line that says
 * why it cannot (a server that cannot reach its store does not start). Its own file in the CLI
 * build (store.cjs, with the Redis client), required only with `--store`.
 */
export async function joinStore(
  options: MockOptions,
  store: StoreAddress,
  io: CliIo,
): Promise<Replica> {
  try {
    return await startReplica(options, store, (line) => io.stderr(`taxonomy-mock: ${line}`))
  } catch (error) {
    const cause = error as NodeJS.ErrnoException
    throw new RuntimeError(
      `cannot reach the session store at ${store.display} (${cause.code ?? cause.message})`,
    )
  }
}
