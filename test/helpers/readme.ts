import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** A Markdown page of the repository (`README.md`, `docs/recipes/vitest.md`), read from the root. */
export function readDoc(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
}

/** The README, read from the repository root. */
export const README = readDoc('README.md')

/** A fenced block of a page: its language, text, the heading it sits under, and its file name if it gives one. */
export interface DocBlock {
  readonly lang: string
  readonly code: string
  readonly section: string
  /** From a first line such as `// vitest.setup.ts: ...`; undefined for blocks that name no file. */
  readonly file: string | undefined
}

const FILE_LINE = /^(?:\/\/|#) ((?:[\w.-]+\/)*[\w.-]+\.[a-z]+)(?::|$)/

/** Every fenced block of a page's Markdown, in order. */
export function blocksOf(markdown: string): DocBlock[] {
  const blocks: DocBlock[] = []
  let section = ''
  const pattern = /^(#{1,3}) (.+)$|^```(\w*)\n([\s\S]*?)^```$/gm
  for (const match of markdown.matchAll(pattern)) {
    if (match[2] !== undefined) section = match[2]
    else
      blocks.push({
        lang: match[3]!,
        code: match[4]!,
        section,
        file: FILE_LINE.exec(match[4]!)?.[1],
      })
  }
  return blocks
}

/** Every fenced block of a page of the repository, in order. */
export function docBlocks(path: string): DocBlock[] {
  return blocksOf(readDoc(path))
}

/** The blocks of a page that name a file, by file name. */
export function docFiles(path: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const block of docBlocks(path)) if (block.file) files.set(block.file, block.code)
  if (files.size === 0) throw new Error(`${path} has no file blocks`)
  return files
}

/** Writes a page's file blocks into `dir` under the names the page gives them; returns the names. */
export function layOut(path: string, dir: string): string[] {
  const files = docFiles(path)
  for (const [name, code] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), code)
  }
  return [...files.keys()]
}
