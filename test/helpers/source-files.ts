import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

/** Every `.ts` file under `dir`, at any depth, in a stable order. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => join(dir, name))
}

/** A file's syntax tree as the compiler parses it: no types, no other files read. */
export function parseSource(file: string, text = readFileSync(file, 'utf8')): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
}

/** The 1-based line a node starts on (its JSDoc left out) and how many lines it spans. */
export function linesOf(node: ts.Node, source: ts.SourceFile): { line: number; lines: number } {
  const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
  const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
  return { line: first + 1, lines: last - first + 1 }
}
