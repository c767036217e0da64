/**
 * How a web `Headers` (fetch, MSW, the fetch handler) joins repeated fields of one name, and how
 * the server joins its raw fields too (RFC 9110 §5.3), so the resolver reads the same list from
 * every transport.
 */
export const FIELD_SEPARATOR = ', '

/**
 * The first element of a joined header: the text before the first `, `. Where one value makes
 * sense (`Authorization`, the session header) the first field counts; `Prefer` is read whole, as
 * RFC 7240 makes its fields one list.
 *
 * @example
 * firstElement('Bearer k1, Bearer k2') // 'Bearer k1'
 * firstElement('s1') // 's1'
 */
export function firstElement(value: string): string {
  const end = value.indexOf(FIELD_SEPARATOR)
  return end === -1 ? value : value.slice(0, end)
}
