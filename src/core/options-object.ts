import { formatReceived } from './size.js'

/**
 * Throws a `TypeError` unless the options argument is an object (`undefined` is taken for none
 * where a default stands in): `null`, a number or a string would otherwise fail somewhere inside
 * with a message about the code, not the call.
 */
export function requireOptionsObject(options: unknown): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(`options must be an object; received ${formatReceived(options)}`)
}
