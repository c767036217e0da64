import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { RuntimeError } from './usage-error.js'

/**
 * Writes a file beside its target and renames it into place, making its folder if missing: a
 * reader sees the old file or the new one, never half of one. `flag` names the file in errors.
 */
export async function writeFileAtomically(file: string, text: string, flag: string): Promise<void> {
  const partial = `${file}.${process.pid}.partial`
  try {
    await mkdir(dirname(file), { recursive: true })
    await writeFile(partial, text, { flag: 'wx' })
    await rename(partial, file)
  } catch (error) {
    await rm(partial, { force: true }).catch(() => {})
    throw new RuntimeError(`cannot write ${flag} file ${JSON.stringify(file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}
