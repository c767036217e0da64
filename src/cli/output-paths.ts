import { resolve } from 'node:path'
import { UsageError } from './usage-error.js'

/**
 * Refuses two flags that name one file (`--out x --types x`): each write replaces the file, so
 * the second would leave the first's bytes nowhere, and the command would still say it wrote
 * them. A descriptor (`/dev/stdout`) or another special path may be named twice: writes append.
 */
export function refuseSharedOutputs(outputs: Readonly<Record<string, string | undefined>>): void {
  const seen = new Map<string, string>()
  for (const [flag, path] of Object.entries(outputs)) {
    if (path === undefined || /^\/(dev|proc)\//.test(path)) continue
    const file = resolve(path)
    const first = seen.get(file)
    if (first !== undefined)
      throw new UsageError(
        `--${first} and --${flag} name the same file ${JSON.stringify(path)}; give each its own`,
      )
    seen.set(file, flag)
  }
}
