import type { SetupServerApi } from 'msw/node'

/**
 * `server.listen()`'s option for requests no handler takes, under msw 2 (`onUnhandledRequest`) and
 * msw 3 (`onUnhandledFrame`) alike: each version reads its own name and ignores the other.
 */
export function onUnhandled(strategy: 'bypass' | 'error'): Parameters<SetupServerApi['listen']>[0] {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy } as unknown as Parameters<SetupServerApi['listen']>[0]
}
