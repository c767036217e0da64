import { toQuoted } from '../core/shown-text.js'
import { followLinks, isDevicePath } from './link-chain.js'
import { UsageError } from './usage-error.js'

/**
 * Refuses two flags that name one file (`--out x --types x`, or a link to `x`): each write
 * replaces the file, so the second would leave the first's bytes nowhere, and the command would
 * still say it wrote them; and a file read (`inputs`: `--data`) that a flag would write, which
 * would replace the data, except the output named `inPlace` (`export --data x --out x` rewrites
 * it). A descriptor (`/dev/stdout`, or a link to one) or another special path may be named twice:
 * writes append.
 */
export function refuseSharedOutputs(
  outputs: Readonly<Record<string, string | undefined>>,
  inputs: Readonly<Record<string, string | undefined>> = {},
  inPlace?: string,
): void {
  const seen = new Map<string, string>()
  for (const [flag, path] of Object.entries(outputs)) {
    if (path === undefined || isDevicePath(path)) continue
    const file = followLinks(path)
    if (isDevicePath(file)) continue
    const first = seen.get(file)
    if (first !== undefined)
      throw new UsageError(
        `--${first} and --${flag} name the same file ${toQuoted(path)}; give each its own`,
      )
    seen.set(file, flag)
  }
  for (const [flag, path] of Object.entries(inputs)) {
    if (path === undefined) continue
    const output = seen.get(followLinks(path))
    if (output !== undefined && output !== inPlace)
      throw new UsageError(
        `--${output} names the file --${flag} reads, ${toQuoted(path)}: writing it would replace the data; give --${output} its own`,
      )
  }
}
