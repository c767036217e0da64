import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'
import { linesOf, parseSource, sourceFiles } from '../helpers/source-files.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const HTTP = fileURLToPath(new URL('../../src/http/', import.meta.url))
/** Past this many lines a function is several concepts (docs/design.md, the resolver's layout). */
const MAX_LINES = 120

/** A function with a body: declared, an expression, an arrow, a method, a constructor or accessor. */
function isFunctionWithBody(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isAccessor(node)) &&
    node.body !== undefined
  )
}

/** The function's own name, else the variable or property it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined)
  return named?.getText() ?? '(anonymous)'
}

/**
 * Every function of a source longer than `max` lines, counted from its first line to its last
 * (its JSDoc left out, the functions nested in it included), as `file:line name: N lines`.
 */
function findLongFunctions(source: ts.SourceFile, max = MAX_LINES): string[] {
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (isFunctionWithBody(node)) {
      const { line, lines } = linesOf(node, source)
      if (lines > max) found.push(`${source.fileName}:${line} ${nameOf(node)}: ${lines} lines`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

it(`keeps every function of src/http/ within ${MAX_LINES} lines, nested functions included`, () => {
  const files = sourceFiles(HTTP)
  expect(files.length).toBeGreaterThan(30)
  const long = files.flatMap((file) =>
    findLongFunctions(parseSource(relative(ROOT, file), readFileSync(file, 'utf8'))),
  )
  expect(long).toEqual([])
})

it('counts a function from its first line to its last, a function nested in it included', () => {
  const body = Array.from({ length: MAX_LINES - 4 }, (_, i) => `    const v${i} = ${i}`).join('\n')
  // 1 + 1 + 116 + 1 + 1 + 1 = 121 lines for `outer`; the arrow inside spans 118.
  const text = `/** Not counted. */\nexport function outer() {\n  const inner = () => {\n${body}\n  }\n  return inner\n}\n`
  const source = parseSource('sample.ts', text)
  expect(findLongFunctions(source)).toEqual([`sample.ts:2 outer: ${MAX_LINES + 1} lines`])
  expect(findLongFunctions(source, MAX_LINES + 1)).toEqual([])
})
