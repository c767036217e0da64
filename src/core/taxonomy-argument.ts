import { isRecord } from './fixture.js'
import { OptionError } from './option-error.js'
import { formatReceived } from './size.js'

/**
 * Throws an `OptionError` naming the argument unless `value` is a taxonomy (from `createTaxonomy()`
 * or `loadTaxonomy()`): nothing, or a fixture object, would otherwise fail inside, with a message
 * about the code ("Cannot read properties of undefined") rather than the call.
 */
export function requireTaxonomy(value: unknown, name: string): void {
  if (typeof (value as { toFixture?: unknown } | null | undefined)?.toFixture === 'function') return
  const received =
    isRecord(value) && Array.isArray(value.domains)
      ? 'a fixture object; load it with loadTaxonomy() first'
      : formatReceived(value)
  throw new OptionError(
    name,
    `must be a taxonomy from createTaxonomy() or loadTaxonomy(); received ${received}`,
  )
}
