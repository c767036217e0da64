/**
 * The longest delay, in milliseconds: the most `setTimeout` waits (2^31-1); past it, timers fire at
 * once. The `delay` option, scenarios, `Prefer: delay=` and the OpenAPI document all quote it.
 */
export const MAX_DELAY = 2_147_483_647
