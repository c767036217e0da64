import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** The README, read from the repository root. */
export const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** A fenced block of the README: its language, text, the heading it sits under, and its file name if it gives one. */
export interface ReadmeBlock {
  readonly lang: string
  readonly code: string
  readonly section: string
  /** From a first line such as `// vitest.setup.ts: ...`; undefined for blocks that name no file. */
  readonly file: string | undefined
}

const FILE_LINE = /^(?:\/\/|#) ((?:[\w.-]+\/)*[\w.-]+\.[a-z]+)(?::|$)/

/** Every fenced block of the README, in order. */
export function readmeBlocks(readme = README): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = []
  let section = ''
  const pattern = /^(#{2,3}) (.+)$|^```(\w*)\n([\s\S]*?)^```$/gm
  for (const match of readme.matchAll(pattern)) {
    if (match[2] !== undefined) section = match[2]
    else blocks.push({ lang: match[3]!, code: match[4]!, section, file: FILE_LINE.exec(match[4]!)?.[1] })
  }
  return blocks
}

/** The blocks of one README section that name a file, by file name. */
export function readmeFiles(section: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const block of readmeBlocks()) if (block.section === section && block.file) files.set(block.file, block.code)
  if (files.size === 0) throw new Error(`the README has no file blocks under "${section}"`)
  return files
}

/** Writes a section's files into `dir` under the names the README gives them; returns the names. */
export function layOut(section: string, dir: string): string[] {
  const files = readmeFiles(section)
  for (const [name, code] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), code)
  }
  return [...files.keys()]
}
