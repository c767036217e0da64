// The ecosystem's package checkers on the packed tarball (`npm test` builds dist/ first): publint
// and Are the Types Wrong (`attw`). A finding passes only if docs/reference.md names it, with its
// reason, under "Package checkers"; today none is named, so any finding fails.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { publint } from 'publint'
import { formatMessage } from 'publint/utils'
import { beforeAll, expect, it } from 'vitest'
import { packTarball } from './helpers/packed.js'
import { readDoc } from './helpers/readme.js'

/** The rule names docs/reference.md accepts on purpose: "- `rule`: why" under "## Package checkers". */
function acceptedFindings(): Set<string> {
  const section = /^## Package checkers\n([\s\S]*?)(?=^## )/m.exec(readDoc('docs/reference.md'))
  if (section === null) throw new Error('docs/reference.md has no "## Package checkers" section')
  return new Set([...section[1]!.matchAll(/^- `([\w-]+)`: /gm)].map(([, rule]) => rule!))
}

let tarball = ''
beforeAll(() => {
  tarball = packTarball().tarball
})

it('publint finds nothing in the packed tarball that the reference does not explain', async () => {
  const data = readFileSync(tarball)
  const { messages, pkg } = await publint({
    pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
    level: 'suggestion',
    strict: true,
  })
  const accepted = acceptedFindings()
  expect(
    messages
      .filter((message) => !accepted.has(message.code))
      .map((message) => `${message.code}: ${formatMessage(message, pkg)}`),
  ).toEqual([])
})

it('attw finds nothing in the packed tarball that the reference does not explain, under any resolution', () => {
  // Its `bin` (dist/index.js), which the package's exports map does not name.
  const manifest = fileURLToPath(import.meta.resolve('@arethetypeswrong/cli/package.json'))
  const cli = join(dirname(manifest), 'dist/index.js')
  const run = spawnSync('node', [cli, tarball, '--format', 'json'], { encoding: 'utf8' })
  const { analysis } = JSON.parse(run.stdout) as {
    analysis: {
      entrypoints: Record<string, unknown>
      problems: ({ kind: string } & Record<string, unknown>)[]
    }
  }
  // Every subpath of the exports map was checked, under node10, node16 (CJS and ESM) and bundler.
  expect(Object.keys(analysis.entrypoints)).toEqual(expect.arrayContaining(['.', './msw']))
  const accepted = acceptedFindings()
  expect(
    analysis.problems
      .filter((problem) => !accepted.has(problem.kind))
      .map(({ kind, ...where }) => `${kind}: ${JSON.stringify(where)}`),
  ).toEqual([])
})
