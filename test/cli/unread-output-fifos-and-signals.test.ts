// The CLI when its output is not read or cannot be written, when --data is a FIFO or a device, and
// when a signal arrives during start-up or twice.
import { execFileSync, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { LONG_LOGGED_PATH, load, startUnseenServer } from '../helpers/local-load.js'
import { readDataFile } from '../../src/cli/data-file.js'
import { UsageError } from '../../src/cli/usage-error.js'
import { BIN, spawnCli } from '../helpers/cli.js'
import { HANG_MS, until } from '../helpers/clock.js'
import { openCount } from '../helpers/open-files.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /

it('drops and counts log lines while stdout is not read, and exits promptly on SIGTERM', async () => {
  const run = spawnCli(['--port', '0'])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  await run.waitFor(/also:/)
  run.child.stdout!.pause()
  // 4,000 log lines of about 215 bytes (860 KB): far more than a pipe (64 KB) and the CLI's queue
  // of log lines (256 KB) hold.
  expect(await load(url, 4_000, 8, LONG_LOGGED_PATH)).toBe(4_000)
  // Nobody ever reads stdout: a CLI that waited for its lines to be read would never exit.
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  expect(run.stderr.join('\n')).toMatch(
    /^taxonomy-mock: \d+ log lines dropped \(stdout was not being read\)$/,
  )
})

it('keeps serving when stdout cannot be written (a full disk), saying so once on stderr', async () => {
  // The banner cannot be read from stdout: the server is found by its port and seed.
  const { child, url, exit } = await startUnseenServer(
    BIN,
    [],
    ['ignore', openSync('/dev/full', 'w'), 'pipe'],
  )
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  // Every log line fails to be written: a few hundred requests are as many failed writes as it takes.
  expect(await load(url, 300)).toBe(300)
  child.kill('SIGTERM')
  expect(await exit).toBe(0)
  expect(stderr).toBe(
    'taxonomy-mock: cannot write to stdout (ENOSPC); the request log is dropped\n',
  )
})

it('export to a full disk is one line and exit 1', () => {
  const child = spawnSync(process.execPath, [BIN, 'export', '--size', 'small'], {
    stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    encoding: 'utf8',
  })
  expect({ status: child.status, stderr: child.stderr }).toEqual({
    status: 1,
    stderr: 'taxonomy-mock: cannot write the export to stdout: ENOSPC\n',
  })
})

it('export into a reader that closes the pipe early exits 0 and prints nothing', () => {
  const child = spawnSync(
    'bash',
    [
      '-o',
      'pipefail',
      '-c',
      // Medium data (1.7 MB, in 100 KB chunks) is far more than the pipe holds: the export is
      // still writing when head closes it.
      `"${process.execPath}" "${BIN}" export --size medium | head -c 100 > /dev/null`,
    ],
    { encoding: 'utf8' },
  )
  expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' })
})

it('enforces the --data size limit while reading a file that is not a regular file', async () => {
  // In-process, with a read timeout that only a hang reaches: the CLI's 5 s bound on reading a
  // device is not what this checks, and 100 MB can take longer than that on a busy machine. The
  // FIFO tests below check how the CLI prints such a refusal.
  await expect(
    readDataFile('/dev/zero', '--data file "/dev/zero"', undefined, HANG_MS),
  ).rejects.toThrow(
    new UsageError(
      '--data file "/dev/zero" is over the 100 MB limit (generate more data with --size large; loadTaxonomy() reads a larger file in code)',
    ),
  )
})

it('refuses a FIFO with no writer at once instead of waiting forever', () => {
  const fifo = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-')), 'data.fifo')
  execFileSync('mkfifo', [fifo])
  const child = spawnSync(process.execPath, [BIN, '--port', '0', '--data', fifo], {
    encoding: 'utf8',
    timeout: HANG_MS,
  })
  expect({ status: child.status, stderr: child.stderr }).toEqual({
    status: 2,
    stderr: `taxonomy-mock: --data file ${JSON.stringify(fifo)} is a FIFO with no writer: nothing to read\n`,
  })
})

it('SIGTERM during start-up exits 0 without listening', async () => {
  // Start-up held open: the --data file is a FIFO whose writer sends half a document and waits
  // (generated data is built after listening, so only a file can hold start-up open).
  const fifo = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-')), 'data.fifo')
  execFileSync('mkfifo', [fifo])
  // Opened here, before the CLI starts, so that it always finds a writer (Linux opens a FIFO for
  // reading and writing at once without waiting).
  const writer = openSync(fifo, 'r+')
  writeSync(writer, '{"format":')
  try {
    const run = spawnCli(['--port', '0', '--data', fifo])
    await until(() => openCount(run.child.pid!, fifo) > 0, 'the CLI reading the FIFO')
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    expect(run.stdout).toEqual([])
    expect(run.stderr).toEqual([])
  } finally {
    closeSync(writer)
  }
})

it('SIGHUP closes gracefully like SIGTERM, exit 0', async () => {
  const run = spawnCli(['--port', '0', '--quiet'])
  await run.waitFor(URL_LINE)
  run.child.kill('SIGHUP')
  expect(await run.exit).toBe(0)
})

it('a second signal cuts the grace short, still exit 0, and delayed answers were sent', async () => {
  const run = spawnCli(['--port', '0', '--quiet', '--delay', '30000'])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  const pending = fetch(`${url}/api/v2/disciplines/x`).then((response) => response.status)
  const journal = async () =>
    (await (await fetch(`${url}/__admin/sessions/default/requests`)).json()) as unknown[]
  await until(async () => (await journal()).length > 0, 'the request received')
  run.child.kill('SIGTERM')
  run.child.kill('SIGINT')
  expect(await run.exit).toBe(0)
  expect(await pending).toBe(401)
})
