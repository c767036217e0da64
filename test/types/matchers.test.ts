// The matchers' declarations, as a consumer's TypeScript reads them from dist/: importing
// taxonomy-mock/matchers/vitest or /jest types `expect(kit).toHaveRequested(...)` under Vitest's
// and Jest's (`@jest/globals`) `expect`, an assertion on a server session as a promise, and a
// misspelt option as an error.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-matcher-types-'))
writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }))
mkdirSync(join(dir, 'node_modules/@jest'), { recursive: true })
symlinkSync(ROOT, join(dir, 'node_modules/taxonomy-mock'))
for (const name of ['vitest', 'expect', 'msw', '@jest/globals', '@jest/expect'])
  symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name))

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
}

/**
 * The declarations every program reads (TypeScript's lib, Vitest's, Jest's, msw's, dist/), parsed
 * once for all of this file's programs: a parsed file is bound once too, and each program still
 * checks its consumer file on its own.
 */
const parsed = new Map<string, ts.SourceFile | undefined>()
const host = ts.createCompilerHost(OPTIONS)
const readSourceFile = host.getSourceFile.bind(host)
host.getSourceFile = (fileName, languageVersion, ...rest) => {
  if (dirname(fileName) === dir) return readSourceFile(fileName, languageVersion, ...rest)
  if (!parsed.has(fileName))
    parsed.set(fileName, readSourceFile(fileName, languageVersion, ...rest))
  return parsed.get(fileName)
}

/** The compiler's messages for one consumer file. */
function diagnosticsOf(name: string, source: string): string[] {
  const file = join(dir, name)
  writeFileSync(file, source)
  const program = ts.createProgram([file], OPTIONS, host)
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

const USES = (expectFrom: string, setup: string) => `
import { expect } from '${expectFrom}'
${setup}
import { createMock } from 'taxonomy-mock/msw'
import { createFetchHandler } from 'taxonomy-mock/fetch'

const mock = createMock()
const sync: void = expect(mock).toHaveRequested({ endpoint: 'disciplines', slug: 'x', times: 1 })
expect(mock).not.toHaveRequested({ status: 404, reason: 'unknown-slug', key: 'ok', method: 'GET' })
expect(createFetchHandler()).toHaveRequestedInOrder([{ status: 200 }, { endpoint: null }])
expect(mock).toHaveNoUnexpectedRequests()
const polled: Promise<void> = expect({ url: 'http://127.0.0.1:4477', session: 's' }).toHaveRequested()
export { sync, polled }
`

it('types the matchers on Vitest’s expect once taxonomy-mock/matchers/vitest is imported', () => {
  expect(
    diagnosticsOf('vitest.ts', USES('vitest', "import 'taxonomy-mock/matchers/vitest'")),
  ).toEqual([])
  expect(
    diagnosticsOf(
      'vitest-asymmetric.ts',
      "import { expect } from 'vitest'\nimport 'taxonomy-mock/matchers/vitest'\nexpect.toHaveRequested({ slug: 'x' })\n",
    ),
  ).toEqual([])
})

it('types the matchers on Jest’s expect (@jest/globals) once taxonomy-mock/matchers/jest is imported', () => {
  expect(
    diagnosticsOf('jest.ts', USES('@jest/globals', "import 'taxonomy-mock/matchers/jest'")),
  ).toEqual([])
})

it('rejects a misspelt option, and knows no matcher without the import', () => {
  const misspelt = (expectFrom: string, setup: string) =>
    `import { expect } from '${expectFrom}'\n${setup}\nimport { createMock } from 'taxonomy-mock/msw'\nexpect(createMock()).toHaveRequested({ endpont: 'disciplines' })\n`
  for (const [expectFrom, setup] of [
    ['vitest', "import 'taxonomy-mock/matchers/vitest'"],
    ['@jest/globals', "import 'taxonomy-mock/matchers/jest'"],
  ] as const) {
    const messages = diagnosticsOf(`misspelt-${expectFrom.length}.ts`, misspelt(expectFrom, setup))
    expect(messages).toHaveLength(1)
    expect(messages[0]).toContain("'endpont' does not exist")
    const without = diagnosticsOf(`without-${expectFrom.length}.ts`, misspelt(expectFrom, ''))
    expect(without.join('\n')).toContain("Property 'toHaveRequested' does not exist")
  }
})
