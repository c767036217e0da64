import type { setupServer } from 'msw/node'

type ListenOptions = Parameters<ReturnType<typeof setupServer>['listen']>[0]

/**
 * `server.listen()`'s option for requests no handler takes, under msw 2 (`onUnhandledRequest`) and
 * msw 3 (`onUnhandledFrame`) alike: each version reads its own name and ignores the other.
 */
export function onUnhandled(strategy: 'bypass' | 'error'): ListenOptions {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy } as unknown as ListenOptions
}
