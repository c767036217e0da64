import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { spawnCli } from '../helpers/cli.js'
import { until } from '../helpers/clock.js'
import { fixturePath } from '../helpers/fixtures.js'
import { auth, base, patched, startWatching } from '../helpers/watch.js'

/** Waits until `count` lines of `lines` match `pattern`. */
function waitForLines(lines: string[], pattern: RegExp, count: number): Promise<void> {
  return until(
    () => lines.filter((line) => pattern.test(line)).length >= count,
    `${count} lines matching ${pattern}: ${lines.join('\n')}`,
  )
}

function tempFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-watch-')), 'taxonomy.json')
  writeFileSync(file, text)
  return file
}

it('reloads the --data file when it changes, and keeps the previous data when the new file is invalid', async () => {
  const file = tempFile(toFixtureJson(base))
  const { run, url } = await startWatching(file)
  expect((await fetch(`${url}/api/v2/disciplines/cs`, auth)).status).toBe(404)

  writeFileSync(file, toFixtureJson(patched))
  await run.waitFor(/reloaded --data file/)
  expect((await fetch(`${url}/api/v2/disciplines/cs`, auth)).status).toBe(200)

  writeFileSync(file, '{ "format": "taxonomy-mock/v1", "domains": [')
  const problem = await run.waitFor(/still serving the previous data/)
  expect(problem).toMatch(
    /^taxonomy-mock: invalid --data file ".*taxonomy\.json": .+; still serving the previous data$/,
  )
  expect((await fetch(`${url}/api/v2/disciplines/cs`, auth)).status).toBe(200)

  // Editors often replace a file by renaming a new one over it.
  const next = `${file}.new`
  writeFileSync(next, toFixtureJson(base))
  renameSync(next, file)
  await waitForLines(run.stdout, /reloaded --data file/, 2)
  expect((await fetch(`${url}/api/v2/disciplines/cs`, auth)).status).toBe(404)
})

it('says a reload or its problem on one line free of C1 and bidirectional controls', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-watch-'))
  const file = join(folder, 'tax\u009b2J\u202eonomy.json')
  writeFileSync(file, toFixtureJson(base))
  const { run } = await startWatching(file)
  writeFileSync(file, toFixtureJson(patched))
  const reloaded = await run.waitFor(/reloaded --data file/)
  expect(reloaded).toContain('tax\\u009b2J\\u202eonomy.json')
  writeFileSync(file, '{ "format": "taxonomy-mock/v1", "domains": [')
  const problem = await run.waitFor(/still serving the previous data/)
  // In JSON quotes as the reload's line has it: escaped, not lost to U+FFFD.
  expect(problem).toContain('tax\\u009b2J\\u202eonomy.json')
  expect(`${reloaded}${problem}`).not.toMatch(/[\u0080-\u009f\u202a-\u202e\ufffd]/)
})

it('counts the topics a reload serves as every line counts: `1 topic`, not `1 topics`, with --workers too', async () => {
  for (const workers of [[], ['--workers', '2']]) {
    const file = tempFile(toFixtureJson(base))
    const run = spawnCli(['--port', '0', '--quiet', '--data', file, '--watch', ...workers])
    await run.waitFor(workers.length === 0 ? /listening on/ : /workers serve the port/)
    writeFileSync(file, readFileSync(fixturePath('minimal.json')))
    expect(await run.waitFor(/reloaded --data file/)).toMatch(
      /^taxonomy-mock: reloaded --data file ".*taxonomy\.json": 1 topic$/,
    )
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  }
})

it('switches atomically: every answer during reloads is wholly the old data or wholly the new', async () => {
  const file = tempFile(toFixtureJson(base))
  const { run, url } = await startWatching(file)
  const slug = base.disciplines[0]!.slug
  const changed = patchTaxonomy(base, {
    disciplines: [{ slug, description: 'Rewritten while the server runs.' }],
  })
  const bodies = new Set(
    [base, changed].map((t) => JSON.stringify(toDisciplineRecord(t, t.findDiscipline(slug)!))),
  )
  expect(bodies.size).toBe(2)
  const [before, after] = [base, changed].map((t) =>
    JSON.stringify(toDisciplineRecord(t, t.findDiscipline(slug)!)),
  )
  let writing = true
  let last = ''
  // Each write once the one before is reloaded and served, whenever a busy machine gets there.
  const writer = (async () => {
    for (let i = 0; i < 6; i++) {
      writeFileSync(file, toFixtureJson(i % 2 ? base : changed))
      await waitForLines(run.stdout, /reloaded --data file/, i + 1)
      const expected = i % 2 ? before : after
      await until(() => last === expected, 'the reloaded data served')
    }
    writing = false
  })()
  const seen = new Set<string>()
  while (writing) {
    last = await (await fetch(`${url}/api/v2/disciplines/${slug}`, auth)).text()
    expect(bodies.has(last)).toBe(true)
    seen.add(last)
  }
  await writer
  expect(seen.size, run.stdout.join('\n')).toBe(2)
})

it('refuses --watch without --data', async () => {
  const run = spawnCli(['--watch'])
  expect(await run.exit).toBe(2)
  expect(run.stderr).toEqual([
    'taxonomy-mock: --watch goes with --data FILE: it reloads that file when it changes',
  ])
})
