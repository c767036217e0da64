import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it, onTestFinished } from 'vitest'
import { runCli, spawnCli } from '../helpers/cli.js'

// Node 22.1+ keeps a compile cache of its own; bin/ keeps V8's code cache only where it lacks one.
const ownCache = Number(process.versions.node.split('.')[0]) < 22

it.runIf(ownCache)(
  "keeps V8's code cache of the CLI in a folder of its own, one for serve and one for the other commands, and runs the same from it, or from a broken one",
  async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'code-cache-'))
    onTestFinished(() => rmSync(tmp, { recursive: true, force: true }))
    const env = { TMPDIR: tmp }
    const first = await runCli(['--version'], env)
    expect(first.code).toBe(0)
    const folder = join(tmp, 'taxonomy-mock-code-cache')
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    const [file] = readdirSync(folder)
    expect(file).toMatch(/\.bin$/)
    expect(statSync(join(folder, file!)).size).toBeGreaterThan(10_000)

    const second = await runCli(['--version'], env)
    expect(second).toEqual(first)

    // V8 refuses a cache that does not fit; the CLI compiles afresh and writes a good one.
    writeFileSync(join(folder, file!), 'not a code cache')
    expect(await runCli(['--version'], env)).toEqual(first)
    expect(statSync(join(folder, file!)).size).toBeGreaterThan(10_000)

    // `serve` keeps a cache of its own, with the server's code: one written by `--version` has none.
    const server = spawnCli(['--port', '0', '--quiet'], env)
    await server.waitFor(/listening on/)
    server.child.kill('SIGTERM')
    expect(await server.exit).toBe(0)
    const files = readdirSync(folder).sort()
    expect(files).toHaveLength(2)
    const serveFile = files.find((name) => name !== file)!
    expect(serveFile).toMatch(/-serve\.bin$/)
    expect(file).toMatch(/-other\.bin$/)
    expect(statSync(join(folder, serveFile)).size).toBeGreaterThan(
      statSync(join(folder, file!)).size,
    )
  },
)
