const MAX_LOGGED = 200
const UNPRINTABLE = /[^\x20-\x7e]/

/**
 * A request path made safe for one log line: control and non-ASCII characters escaped, long paths
 * cut, so a hostile URL can neither forge log lines nor flood the terminal.
 *
 * @example
 * toLogPath('/a\nb') // '/a\\x0ab'
 */
export function toLogPath(path: string): string {
  if (path.length <= MAX_LOGGED && !UNPRINTABLE.test(path)) return path
  const head = path
    .slice(0, MAX_LOGGED)
    .replace(/[^\x20-\x7e]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
  return path.length > MAX_LOGGED ? `${head}...(${path.length} chars)` : head
}
