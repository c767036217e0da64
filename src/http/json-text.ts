/**
 * `JSON.parse`, or `undefined` for text that is not JSON: for answers read from elsewhere (a
 * service, a server that may not be the mock), whose text is then checked for what it must be.
 *
 * @example
 * parseJsonText('[1]') // [1]
 * parseJsonText('<html>') // undefined
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
