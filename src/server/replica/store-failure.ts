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
