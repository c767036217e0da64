import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'
import { parseSource, sourceFiles } from './helpers/source-files.js'

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

/** One import of a file: the file it names, and whether it is a lazy `import()`. */
interface Edge {
  readonly to: string
  readonly lazy: boolean
}

/**
 * The files of `src/` a source imports: `import` and `export ... from` (not `import type` or
 * `export type`, which the compiler erases), and `import('...')` of a string literal. A `.js`
 * specifier names the `.ts` file beside it; packages and builtins are left out.
 */
function importsOf(source: ts.SourceFile, from: string): Edge[] {
  const edges: Edge[] = []
  const add = (specifier: string, lazy: boolean) => {
    if (specifier.startsWith('.'))
      edges.push({ to: join(dirname(from), specifier.replace(/\.js$/, '.ts')), lazy })
  }
  const visit = (node: ts.Node): void => {
    if (
      ts.isImportDeclaration(node) &&
      !node.importClause?.isTypeOnly &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      add(node.moduleSpecifier.text, false)
    else if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      add(node.moduleSpecifier.text, false)
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      add(node.arguments[0].text, true)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

/** The import graph of a set of sources, by path relative to their root. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, Edge[]> {
  return new Map(
    [...sources].map(([path, text]) => [
      path,
      importsOf(parseSource(path, text), path).filter((edge) => sources.has(edge.to)),
    ]),
  )
}

/**
 * Each import circle of a graph, file by file (`a.ts -> b.ts -import()-> a.ts`): one for each
 * import that leads back to a file still being followed.
 */
function findCircles(graph: ReadonlyMap<string, readonly Edge[]>): string[] {
  const circles: string[] = []
  const done = new Set<string>()
  // The files being followed, each after the arrow of the import that led to it.
  const path: { readonly file: string; readonly arrow: string }[] = []
  const follow = (file: string, arrow: string): void => {
    path.push({ file, arrow })
    for (const edge of graph.get(file) ?? []) {
      const next = edge.lazy ? ' -import()-> ' : ' -> '
      const back = path.findIndex((step) => step.file === edge.to)
      if (back !== -1) {
        const steps = path
          .slice(back)
          .map((step, i) => (i === 0 ? step.file : step.arrow + step.file))
        circles.push(`${steps.join('')}${next}${edge.to}`)
      } else if (!done.has(edge.to)) follow(edge.to, next)
    }
    path.pop()
    done.add(file)
  }
  for (const file of graph.keys()) if (!done.has(file)) follow(file, '')
  return circles
}

it('finds no import circle in src/, lazy import() included', () => {
  const sources = new Map(
    sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, 'utf8')] as const),
  )
  const graph = importGraph(sources)
  expect([...graph.values()].flat().length).toBeGreaterThan(500)
  expect(findCircles(graph)).toEqual([])
})

it('names a circle file by file, a lazy import() and a re-export included', () => {
  const graph = importGraph(
    new Map([
      ['cli/a.ts', "import { b } from './b.js'\nimport type { C } from '../c.js'"],
      ['cli/b.ts', "export * from '../c.js'"],
      ['c.ts', "export const c = async () => (await import('./cli/a.js')).a"],
      ['d.ts', "import type { A } from './cli/a.js'\nexport type { B } from './cli/b.js'"],
    ]),
  )
  expect(findCircles(graph)).toEqual(['cli/a.ts -> cli/b.ts -> c.ts -import()-> cli/a.ts'])
})
