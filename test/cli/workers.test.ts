import { request as httpRequest, Agent } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { execFileSync } from 'node:child_process'
import { createHash, X509Certificate } from 'node:crypto'
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  write,
  writeFileSync,
} from 'node:fs'
import { connect } from 'node:net'
import { connect as connectTls } from 'node:tls'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { createSelfSignedCertificate } from '../../src/server/self-signed.js'
import { childPids } from '../helpers/child-pids.js'
import { runCli, spawnCli, spawnSharedCli, type CliRun } from '../helpers/cli.js'
import { HANG_MS, track, until } from '../helpers/clock.js'
import { openCount } from '../helpers/open-files.js'

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }
const URL_LINE = /listening on (https?:\/\/\S+)/

const WORKERS_LINE = /2 workers serve the port/

/** Starts `serve --workers 2` on any free port; its URL once every worker serves. */
async function startWorkers(...args: string[]) {
  return serving(spawnCli(['--port', '0', '--workers', '2', ...args]))
}

/** The run's URL, once every worker serves. */
async function serving(run: CliRun) {
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  await run.waitFor(WORKERS_LINE)
  return { run, url }
}

/**
 * Spawns `serve --workers 2` on any free port, its workers held at their start until `open()`
 * (test/helpers/hold-workers.cjs).
 */
function spawnHeld(...args: string[]) {
  const gate = join(mkdtempSync(join(tmpdir(), 'tm-gate-')), 'open')
  const hold = fileURLToPath(new URL('../helpers/hold-workers.cjs', import.meta.url))
  const run = spawnCli(['--port', '0', '--workers', '2', ...args], {
    NODE_OPTIONS: `--require ${JSON.stringify(hold)}`,
    TAXONOMY_MOCK_TEST_GATE: gate,
  })
  return { run, open: () => writeFileSync(gate, '') }
}

/**
 * Starts `serve --workers 2 --quiet` whose primary takes a worker that has not answered it within
 * 1 s for hung, not within 10 s: a test need not wait that long for a worker it stopped.
 */
async function startWithAnswerBound(...extra: string[]) {
  const args = ['--port', '0', '--workers', '2', '--quiet', ...extra]
  return serving(spawnCli(args, { TAXONOMY_MOCK_TEST_WORKER_ANSWER_MS: '1000' }))
}

/** The line the primary says of a worker it killed for not answering. */
const hungLine = (pid: number, question: string, seconds = 1) =>
  `taxonomy-mock: worker ${pid} did not answer ${question} within ${seconds} s (stopped or hung); killed, starting another`

/** The lines a run said of workers killed for not answering. */
const hungLines = (run: CliRun) => run.stderr.filter((line) => /did not answer/.test(line))

/** A request on a connection of its own, so that successive requests reach both workers. */
function get(url: string, headers: Record<string, string> = {}, agent: Agent | false = false) {
  return new Promise<{ status: number; body: string; dataset: string | undefined }>(
    (resolve, reject) => {
      const request = httpRequest(url, { headers, agent }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            body,
            dataset: response.headers['x-taxonomy-mock-dataset'] as string | undefined,
          }),
        )
      })
      request.on('error', reject)
      request.end()
    },
  )
}

/** An HTTPS request on a connection of its own, trusting `ca` only. */
function getTls(url: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const options = { headers: { ...AUTH, ...headers }, agent: false, ca }
    const request = httpsRequest(url, options, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, body }))
    })
    request.on('error', reject)
    request.end()
  })
}

/** The fingerprint of the certificate a TLS connection to `url` is shown (trusting `ca`). */
function servedFingerprint(url: string, ca: string) {
  const { hostname, port } = new URL(url)
  return new Promise<string>((resolve, reject) => {
    const socket = connectTls({ host: hostname, port: Number(port), ca }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256)
      socket.destroy()
    })
    socket.on('error', reject)
  })
}

/**
 * One request on a TLS connection of its own, offering `session`: the status, whether the server
 * resumed that session, and the session it gave for the next connection.
 */
function resumeTls(url: string, ca: string, session?: Buffer) {
  const { hostname, port } = new URL(url)
  return new Promise<{ status: number; reused: boolean; next: Buffer | undefined }>(
    (resolve, reject) => {
      let reused = false
      let next: Buffer | undefined
      let text = ''
      const socket = connectTls({ host: hostname, port: Number(port), ca, session }, () => {
        reused = socket.isSessionReused()
        socket.write(
          `GET /api/v2/disciplines/history HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
            `Authorization: ${AUTH.authorization}\r\nConnection: close\r\n\r\n`,
        )
      })
      socket.on('session', (given: Buffer) => (next = given))
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => (text += chunk))
      socket.on('close', () => resolve({ status: Number(text.split(' ')[1]), reused, next }))
      socket.on('error', reject)
    },
  )
}

/** Kills one of the two workers and waits for the primary to start another: that one's pid. */
async function replaceAWorker(run: CliRun): Promise<number> {
  const [killed, kept] = await childPids(run.child.pid!)
  process.kill(killed!, 'SIGKILL')
  return workerInPlaceOf(run, killed!, kept!)
}

/** Waits for the worker the primary starts in place of `gone`, beside `kept`: its pid. */
async function workerInPlaceOf(run: CliRun, gone: number, kept: number): Promise<number> {
  let started: number | undefined
  await until(
    async () =>
      (started = (await childPids(run.child.pid!)).find((pid) => pid !== kept && pid !== gone)) !==
      undefined,
    'a worker started in place of the dead one',
  )
  return started!
}

/**
 * What `/__metrics` counts of 200s to `/api/v2/disciplines/…` and of answers timed, on a
 * connection of its own.
 */
async function fetchCounts(url: string, signal?: AbortSignal) {
  const text = await (
    await fetch(`${url}/__metrics`, { signal, headers: { connection: 'close' } })
  ).text()
  const read = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0)
  return {
    ok: read(
      /^taxonomy_mock_requests_total\{endpoint="disciplines",status="200",scenario="none"\} (\d+)$/m,
    ),
    answers: read(/^taxonomy_mock_answer_seconds_count (\d+)$/m),
  }
}

/** The sockets a process holds open. */
async function socketCount(pid: number): Promise<number> {
  const { readdir, readlink } = await import('node:fs/promises')
  let count = 0
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    if (target.startsWith('socket:')) count++
  }
  return count
}

describe('serve --workers 2', () => {
  /**
   * One `serve --workers 2 --quiet` for the tests that leave its workers as they found them (each
   * keeps to a session of its own, or counts from what it finds): three processes started once,
   * not once per test.
   */
  let shared: { run: CliRun; url: string }
  let sharedRun: CliRun | undefined
  beforeAll(async () => {
    sharedRun = spawnSharedCli(['--port', '0', '--workers', '2', '--quiet'])
    shared = await serving(sharedRun)
  })
  afterAll(async () => {
    // Stopped whether or not it came to serve: it is no test's to kill.
    sharedRun?.child.kill('SIGTERM')
    expect(await sharedRun?.exit).toBe(0)
  })

  // First on the shared server: no connection of an earlier test is still closing while its
  // workers' sockets are counted.
  it('spreads connections over both workers; /__metrics adds up what each counted', async () => {
    const { run, url } = shared
    const workers = await childPids(run.child.pid!)
    const counted = async () =>
      Number(
        /^taxonomy_mock_requests_total\{endpoint="disciplines",status="200",scenario="none"\} (\d+)$/m.exec(
          await (await fetch(`${url}/__metrics`)).text(),
        )?.[1] ?? 0,
      )
    const countedBefore = await counted()
    const before = await Promise.all(workers.map(socketCount))
    // Eight connections held open at once: round-robin hands them to both workers (about half
    // each; a worker still busy with the last one is passed over).
    const agent = new Agent({ keepAlive: true, maxSockets: 8 })
    await Promise.all(
      [...Array(8).keys()].map(() => get(`${url}/api/v2/disciplines/history`, AUTH, agent)),
    )
    const after = await Promise.all(workers.map(socketCount))
    const gained = after.map((count, i) => count - before[i]!)
    expect(gained[0]! + gained[1]!).toBe(8)
    expect(Math.min(...gained)).toBeGreaterThanOrEqual(2)
    agent.destroy()
    for (let i = 0; i < 12; i++) await get(`${url}/api/v2/disciplines/history`, AUTH)
    const metrics = await (await fetch(`${url}/__metrics`)).text()
    expect(metrics).toMatch(/^taxonomy_mock_workers 2$/m)
    expect(await counted()).toBe(countedBefore + 20)
  })

  it('/__metrics counts a session a request made once, whichever workers answered it', async () => {
    const { url } = shared
    const sessions = async () =>
      Number(
        /^taxonomy_mock_sessions (\d+)$/m.exec(await (await fetch(`${url}/__metrics`)).text())![1],
      )
    const before = await sessions()
    // On four connections of their own: round-robin hands them to both workers.
    for (let i = 0; i < 4; i++)
      expect(
        (await get(`${url}/__sessions/counted-1/api/v2/disciplines/history`, AUTH)).status,
      ).toBe(200)
    expect(await sessions()).toBe(before + 1)
  })

  it('answers as one process does, with the same bytes', async () => {
    const single = spawnCli(['--port', '0', '--quiet'])
    const singleUrl = URL_LINE.exec(await single.waitFor(URL_LINE))![1]!
    const { url } = shared
    for (const path of [
      '/api/v2/disciplines/history',
      '/api/v2/sub-disciplines/military-history',
      '/api/v2/disciplines/nope',
    ]) {
      for (let i = 0; i < 4; i++) {
        const one = await get(`${singleUrl}${path}`, AUTH)
        const many = await get(`${url}${path}`, AUTH)
        expect([many.status, many.body]).toEqual([one.status, one.body])
      }
    }
    expect((await get(`${url}/api/v2/disciplines/history`)).status).toBe(401)
  })

  it("draws a session's `Prefer` cuts and delays from one stream, as one process does", async () => {
    const single = spawnCli(['--port', '0', '--quiet'])
    const singleUrl = URL_LINE.exec(await single.waitFor(URL_LINE))![1]!
    const { url } = shared
    const path = '/api/v2/disciplines/history'
    // A malformed body without `bytes` is cut at a share drawn from the session's stream.
    const cut = { ...AUTH, 'x-taxonomy-mock-session': 'p2', prefer: 'scenario=malformed' }
    const delayed = { ...AUTH, 'x-taxonomy-mock-session': 'p2', prefer: 'delay=1-40' }
    for (let i = 0; i < 8; i++) {
      const one = await get(`${singleUrl}${path}`, i % 2 === 0 ? cut : delayed)
      const many = await get(`${url}${path}`, i % 2 === 0 ? cut : delayed)
      expect([many.status, many.body], `request ${i}`).toEqual([one.status, one.body])
    }
    const delays = async (base: string) =>
      (
        (await (await fetch(`${base}/__admin/sessions/p2/requests`)).json()) as { ms: number }[]
      ).map(({ ms }) => ms)
    expect(await delays(url)).toEqual(await delays(singleUrl))
  })

  it('a times: 3 scenario set through any worker fails exactly 3 requests, journaled in order', async () => {
    const { url } = shared
    const session = { ...AUTH, 'x-taxonomy-mock-session': 't1' }
    // Requests before the scenario are answered by the workers themselves.
    for (let i = 0; i < 3; i++) await get(`${url}/api/v2/disciplines/history?before=${i}`, session)
    const put = await fetch(`${url}/__admin/sessions/t1/scenario`, {
      method: 'PUT',
      body: JSON.stringify({ kind: 'unavailable', times: 3 }),
    })
    expect(put.status).toBe(200)
    const statuses = []
    for (let i = 0; i < 10; i++)
      statuses.push((await get(`${url}/api/v2/disciplines/history?after=${i}`, session)).status)
    expect(statuses).toEqual([503, 503, 503, 200, 200, 200, 200, 200, 200, 200])
    const journal = (await (await fetch(`${url}/__admin/sessions/t1/requests`)).json()) as {
      path: string
      status: number
      t: number
    }[]
    expect(journal.map(({ path }) => path)).toEqual([
      ...[0, 1, 2].map((i) => `/api/v2/disciplines/history?before=${i}`),
      ...[...Array(10).keys()].map((i) => `/api/v2/disciplines/history?after=${i}`),
    ])
    expect(journal.map(({ status }) => status)).toEqual([200, 200, 200, ...statuses])
    const times = journal.map(({ t }) => t)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    // Cleared through one worker: gone from every worker's part.
    await fetch(`${url}/__admin/sessions/t1/requests`, { method: 'DELETE' })
    expect(await (await fetch(`${url}/__admin/sessions/t1/requests`)).json()).toEqual([])
  })

  it("a session's data patch is in force on every worker from the next request", async () => {
    const { url } = shared
    const session = { ...AUTH, 'x-taxonomy-mock-session': 'p1' }
    const put = await fetch(`${url}/__admin/sessions/p1/data`, {
      method: 'PUT',
      body: JSON.stringify({ preset: 'empty-children' }),
    })
    expect(put.status).toBe(200)
    const patched = ((await put.json()) as { dataset: { digest: string } }).dataset.digest
    const base = (await get(`${url}/api/v2/disciplines/history`, AUTH)).dataset
    expect(base).not.toContain(patched)
    for (let i = 0; i < 6; i++) {
      // Each on a new connection: both workers answer in turn.
      expect((await get(`${url}/api/v2/disciplines/history`, session)).dataset).toContain(patched)
      expect((await get(`${url}/api/v2/disciplines/history`, AUTH)).dataset).toBe(base)
    }
  })

  it('refuses a patch nested 5,000 levels deep with the 400 one process gives, not a 500', async () => {
    const { url } = shared
    // Deeper than V8's serializer takes (about 4,000 levels): a worker sent it to the primary as is.
    const body = `${'['.repeat(5_000)}${']'.repeat(5_000)}`
    for (let i = 0; i < 2; i++) {
      // Each on a new connection: both workers answer in turn.
      const put = await fetch(`${url}/__admin/sessions/deep/data`, {
        method: 'PUT',
        headers: { connection: 'close' },
        body,
      })
      expect(put.status).toBe(400)
      expect(((await put.json()) as { error: string }).error).toBe(
        `Invalid patch: ${'[0]'.repeat(64)}: a patch nests arrays and objects at most 64 levels deep`,
      )
    }
  })

  it('SIGTERM: exit 0 and no worker left; a killed worker is started again and said once', async () => {
    const { run, url } = await startWorkers()
    await fetch(`${url}/__admin/sessions/k1/scenario`, {
      method: 'PUT',
      body: JSON.stringify({ kind: 'unavailable' }),
    })
    const children = await childPids(run.child.pid!)
    expect(children).toHaveLength(2)
    process.kill(children[0]!, 'SIGKILL')
    await expect
      .poll(() => run.stderr.join('\n'), { timeout: HANG_MS })
      .toMatch(/exited \(SIGKILL\); starting another/)
    await expect
      .poll(async () => (await childPids(run.child.pid!)).length, { timeout: HANG_MS })
      .toBe(2)
    expect((await get(`${url}/api/v2/disciplines/history`, AUTH)).status).toBe(200)
    // The worker started instead knows the sessions' scenarios.
    const k1 = { ...AUTH, 'x-taxonomy-mock-session': 'k1' }
    for (let i = 0; i < 4; i++)
      expect((await get(`${url}/api/v2/disciplines/history`, k1)).status).toBe(503)
    const after = await childPids(run.child.pid!)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    for (const pid of after) expect(isAlive(pid)).toBe(false)
    expect(run.stderr.filter((line) => /starting another/.test(line))).toHaveLength(1)
    // The request log: one line per request, from whichever worker answered.
    expect(
      run.stdout.filter((line) => /^GET \/api\/v2\/disciplines\/history \d{3} /.test(line)),
    ).toHaveLength(5)
  })

  it('/__metrics: a worker that dies leaves what it counted; no counter goes down', async () => {
    const { run, url } = await startWorkers('--quiet')
    // On connections of their own: round-robin hands them to both workers.
    for (let i = 0; i < 10; i++) await get(`${url}/api/v2/disciplines/history`, AUTH)
    const before = await fetchCounts(url)
    expect(before.ok).toBe(10)
    await replaceAWorker(run)
    const after = await fetchCounts(url)
    expect(after.ok).toBe(10)
    expect(after.answers).toBeGreaterThanOrEqual(before.answers)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('/__metrics answers while a worker does not (SIGSTOP), with what it counted before', async () => {
    const { run, url } = await startWorkers('--quiet')
    for (let i = 0; i < 10; i++) await get(`${url}/api/v2/disciplines/history`, AUTH)
    expect((await fetchCounts(url)).ok).toBe(10)
    const [stuck] = await childPids(run.child.pid!)
    process.kill(stuck!, 'SIGSTOP')
    try {
      // Two connections: round-robin hands one of them to the worker that answers.
      const signal = AbortSignal.timeout(HANG_MS)
      const counts = await Promise.any([fetchCounts(url, signal), fetchCounts(url, signal)])
      expect(counts.ok).toBe(10)
    } finally {
      process.kill(stuck!, 'SIGCONT')
    }
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('a worker reading a reload is busy, not hung: it has six times the bound before it is taken for hung', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tm-workers-'))
    const file = join(dir, 'data.json')
    writeFileSync(file, toFixtureJson(createTaxonomy({ size: 'small', seed: 1 })))
    const { run } = await startWithAnswerBound('--data', file, '--watch')
    const [stuck] = await childPids(run.child.pid!)
    // Stopped, it reads the reload for as long as a file too large for the bound would take.
    process.kill(stuck!, 'SIGSTOP')
    try {
      const next = join(dir, 'next.json')
      writeFileSync(next, toFixtureJson(createTaxonomy({ size: 'small', seed: 2 })))
      renameSync(next, file)
      // Its line on stderr may come after the reload's on stdout: two pipes.
      await run.waitFor(/reloaded --data file/)
      await expect
        .poll(() => hungLines(run), { timeout: HANG_MS })
        .toEqual([hungLine(stuck!, 'a reload', 6)])
    } finally {
      if (isAlive(stuck!)) process.kill(stuck!, 'SIGCONT')
    }
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('an admin write answers while a worker does not (SIGSTOP): that worker is killed, and the one started instead has the write', async () => {
    const { run, url } = await startWithAnswerBound()
    const [stuck, kept] = await childPids(run.child.pid!)
    process.kill(stuck!, 'SIGSTOP')
    try {
      // Two connections: round-robin hands one of them to the worker that answers (the other is
      // lost with the worker killed).
      const put = () =>
        fetch(`${url}/__admin/sessions/x/scenario`, {
          method: 'PUT',
          body: JSON.stringify({ kind: 'unavailable' }),
          headers: { connection: 'close' },
          signal: AbortSignal.timeout(HANG_MS),
        })
      expect((await Promise.any([put(), put()])).status).toBe(200)
      await expect
        .poll(() => hungLines(run), { timeout: HANG_MS })
        .toEqual([hungLine(stuck!, 'an admin write')])
      await expect.poll(() => isAlive(stuck!), { timeout: HANG_MS }).toBe(false)
    } finally {
      if (isAlive(stuck!)) process.kill(stuck!, 'SIGCONT')
    }
    const started = await workerInPlaceOf(run, stuck!, kept!)
    // Eight connections at once in session x, until the new worker takes some of them: every
    // answer, from either worker, has the write in force.
    const statuses: number[] = []
    await until(async () => {
      const before = await socketCount(started)
      const agent = new Agent({ keepAlive: true, maxSockets: 8 })
      const session = { ...AUTH, 'x-taxonomy-mock-session': 'x' }
      const answers = Promise.all(
        [...Array(8).keys()].map(() => get(`${url}/api/v2/disciplines/history`, session, agent)),
      )
      const during = await answers.then(() => socketCount(started))
      agent.destroy()
      statuses.push(...(await answers).map(({ status }) => status))
      return during > before
    }, 'the new worker serves')
    expect(statuses.filter((status) => status !== 503)).toEqual([])
    // Said once, by its own line: not again as an exit.
    expect(run.stderr).toEqual([hungLine(stuck!, 'an admin write')])
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('a journal read answers while a worker does not (SIGSTOP), with what the others hold', async () => {
    const { run, url } = await startWithAnswerBound()
    const session = { ...AUTH, 'x-taxonomy-mock-session': 'j1' }
    await fetch(`${url}/__admin/sessions/j1`, { method: 'PUT' })
    // On new connections, one after another: both workers answer some.
    for (let i = 0; i < 4; i++) await get(`${url}/api/v2/disciplines/history?n=${i}`, session)
    const [stuck] = await childPids(run.child.pid!)
    process.kill(stuck!, 'SIGSTOP')
    try {
      const read = async () =>
        (await (
          await fetch(`${url}/__admin/sessions/j1/requests`, {
            headers: { connection: 'close' },
            signal: AbortSignal.timeout(HANG_MS),
          })
        ).json()) as { path: string }[]
      const journal = await Promise.any([read(), read()])
      // The killed worker's part is lost, as with any worker that dies.
      expect(journal.length).toBeGreaterThan(0)
      expect(journal.length).toBeLessThan(4)
      await expect
        .poll(() => hungLines(run), { timeout: HANG_MS })
        .toEqual([hungLine(stuck!, 'a journal read')])
    } finally {
      if (isAlive(stuck!)) process.kill(stuck!, 'SIGCONT')
    }
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('journals a wrong key in a session made with PUT on every worker, and one started in place of a dead one', async () => {
    const { run, url } = await startWorkers('--quiet')
    const refused = (session: string) => ({
      authorization: 'Bearer wrong',
      'x-taxonomy-mock-session': session,
    })
    const journal = async (session: string) =>
      (await (await fetch(`${url}/__admin/sessions/${session}/requests`)).json()) as {
        reason: string
      }[]
    /**
     * Eight requests on eight connections held at once (round-robin hands them to both workers),
     * and `measure` while they are still open.
     */
    const sendEight = async <T>(session: string, measure?: () => Promise<T>) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 })
      const answers = await Promise.all(
        [...Array(8).keys()].map(() =>
          get(`${url}/api/v2/disciplines/history`, refused(session), agent),
        ),
      )
      const measured = await measure?.()
      agent.destroy()
      expect(answers.map(({ status }) => status)).toEqual(Array(8).fill(401))
      return measured
    }
    expect((await fetch(`${url}/__admin/sessions/w0`, { method: 'PUT' })).status).toBe(200)
    expect((await fetch(`${url}/__admin/sessions/w1`, { method: 'PUT' })).status).toBe(200)
    await sendEight('w0')
    expect((await journal('w0')).map(({ reason }) => reason)).toEqual(Array(8).fill('invalid-key'))
    const started = await replaceAWorker(run)
    // Until the new worker serves (it then takes some of the eight connections); each round is
    // journaled in w1 by whichever worker answered it.
    let sent = 0
    await until(async () => {
      const before = await socketCount(started)
      const during = await sendEight('w1', () => socketCount(started))
      sent += 8
      return during! > before
    }, 'the new worker serves')
    expect((await journal('w1')).map(({ reason }) => reason)).toEqual(
      Array(sent).fill('invalid-key'),
    )
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('gives a worker started in place of a dead one every admin write made while it starts', async () => {
    const { run, url } = await startWorkers('--quiet')
    const children = await childPids(run.child.pid!)
    process.kill(children[0]!, 'SIGKILL')
    // Once the primary knows (a connection handed to a dying worker may never be answered)...
    await expect
      .poll(() => run.stderr.join('\n'), { timeout: HANG_MS, interval: 5 })
      .toMatch(/starting another/)
    // ...admin writes one after another while the new worker starts, takes the state and listens.
    const sessions: string[] = []
    const until = performance.now() + 800
    for (let n = 0; performance.now() < until; n++) {
      const response = await fetch(`${url}/__admin/sessions/starting-${n}/scenario`, {
        method: 'PUT',
        body: JSON.stringify({ kind: 'unavailable' }),
      })
      expect(response.status).toBe(200)
      sessions.push(`starting-${n}`)
    }
    // New connections alternate over both workers: each must know every session's scenario.
    const wrong: string[] = []
    for (const session of sessions)
      for (let i = 0; i < 2; i++) {
        const { status } = await get(`${url}/api/v2/disciplines/history`, {
          ...AUTH,
          'x-taxonomy-mock-session': session,
        })
        if (status !== 503) wrong.push(`${session}: ${status}`)
      }
    expect(wrong).toEqual([])
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it("a ttl scenario that ran out stays out in a worker started in place of a dead one, --scenario's and a PUT's", async () => {
    const scenario = JSON.stringify({ kind: 'unavailable', ttl: 2000 })
    const { run, url } = await startWorkers('--quiet', '--scenario', scenario)
    const put = await fetch(`${url}/__admin/sessions/t1/scenario`, {
      method: 'PUT',
      body: scenario,
    })
    expect(put.status).toBe(200)
    const read = async (session: string) =>
      (
        (await (await fetch(`${url}/__admin/sessions/${session}/scenario`)).json()) as {
          scenario: unknown
        }
      ).scenario
    // Failing while its ttl lasts; on cores busy enough for the 2 s to pass first, gone for good.
    if ((await get(`${url}/api/v2/disciplines/history`, AUTH)).status !== 503)
      expect(await read('default')).toBeNull()
    await until(async () => (await read('default')) === null, 'the default scenario ran out')
    await until(async () => (await read('t1')) === null, "t1's scenario ran out")
    const started = await replaceAWorker(run)
    // Eight connections at once in each session, until the new worker takes some of them (within
    // the ttl of its start: a scenario started again would still fail them).
    const statuses: number[] = []
    const sendEight = async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 })
      const answers = Promise.all(
        ['default', 't1', 'default', 't1', 'default', 't1', 'default', 't1'].map((session) =>
          get(
            `${url}/api/v2/disciplines/history`,
            { ...AUTH, 'x-taxonomy-mock-session': session },
            agent,
          ),
        ),
      )
      const during = await answers.then(() => socketCount(started))
      agent.destroy()
      statuses.push(...(await answers).map(({ status }) => status))
      return during
    }
    await until(async () => {
      const before = await socketCount(started)
      return (await sendEight()) > before
    }, 'the new worker serves')
    expect(statuses.filter((status) => status !== 200)).toEqual([])
    expect([await read('default'), await read('t1')]).toEqual([null, null])
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('never leaves a connection waiting when its worker is killed as it is handed over', async () => {
    const { run, url } = await startWorkers('--quiet')
    const [victim] = await childPids(run.child.pid!)
    // Each request on a connection of its own, eight at a time; a worker killed in their midst.
    // A request still waiting after HANG_MS is one left waiting for ever (a hang), not a slow one.
    const WAITING = `waiting after ${HANG_MS / 1_000} s`
    const settled: string[] = []
    const request = () => {
      let timer: NodeJS.Timeout | undefined
      return Promise.race([
        get(`${url}/api/v2/disciplines/history`, AUTH).then(
          ({ status }) => `${status}`,
          (error: NodeJS.ErrnoException) => error.code ?? 'error',
        ),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve(WAITING), HANG_MS))),
      ])
        .finally(() => clearTimeout(timer))
        .then((outcome) => void settled.push(outcome))
    }
    let sent = 0
    const lanes = [...Array(8).keys()].map(async () => {
      while (sent < 400) {
        if (++sent === 100) process.kill(victim!, 'SIGKILL')
        await request()
      }
    })
    await Promise.all(lanes)
    expect(settled).toHaveLength(400)
    expect(settled.filter((outcome) => outcome === WAITING)).toEqual([])
    // The rest were answered, most of them: only connections the dead worker held are lost.
    expect(settled.filter((outcome) => outcome === '200').length).toBeGreaterThan(380)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('SIGTERM while a worker started in place of a dead one is not up yet: it is stopped too', async () => {
    const { run } = await startWorkers('--quiet')
    const children = await childPids(run.child.pid!)
    // Sent the moment the primary says it forked another: that one is still starting.
    run.child.stderr!.on('data', (chunk: Buffer) => {
      if (/starting another/.test(String(chunk))) run.child.kill('SIGTERM')
    })
    process.kill(children[0]!, 'SIGKILL')
    expect(await run.exit).toBe(0)
    expect(await childPids(run.child.pid!)).toEqual([])
  })

  it('/__metrics: taxonomy_mock_workers counts the processes serving, the primary alone while the workers start', async () => {
    const { run, open } = spawnHeld('--quiet')
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    const serving = async () =>
      /^taxonomy_mock_workers (\d+)$/m.exec(
        await (await fetch(`${url}/__metrics`, { headers: { connection: 'close' } })).text(),
      )?.[1]
    expect(await serving()).toBe('1')
    open()
    await run.waitFor(WORKERS_LINE)
    expect(await serving()).toBe('2')
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('answers from the primary while the workers start, then hands the port over to them', async () => {
    const { run, open } = spawnHeld()
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    // Forked once the primary listens, and held at their start: only the primary can answer.
    const workers = await childPids(run.child.pid!)
    expect(workers).toHaveLength(2)
    const primarySockets = await socketCount(run.child.pid!)
    const kept = new Agent({ keepAlive: true, maxSockets: 1 })
    const first = await get(`${url}/api/v2/disciplines/history`, AUTH, kept)
    expect(first.status).toBe(200)
    expect(run.stdout.some((line) => WORKERS_LINE.test(line))).toBe(false)
    // An admin write while they start: each takes it with the state, or applies it.
    // (On a connection of its own, closed after: the count of the primary's sockets is checked below.)
    const put = new Promise<{ status: number }>((resolve, reject) => {
      httpRequest(
        `${url}/__admin/sessions/early/scenario`,
        { method: 'PUT', agent: false },
        (response) => {
          response.resume()
          resolve({ status: response.statusCode! })
        },
      )
        .on('error', reject)
        .end(JSON.stringify({ kind: 'unavailable' }))
    })
    // And one still being sent when they serve: answered, then its connection closes.
    const late = httpRequest(`${url}/__admin/sessions/late/scenario`, {
      method: 'PUT',
      agent: new Agent({ keepAlive: true }),
      headers: { 'content-length': '22' },
    })
    const lateAnswer = new Promise<[number, string | undefined]>((resolve, reject) => {
      late.on('response', (response) => {
        response.resume()
        resolve([response.statusCode!, response.headers.connection])
      })
      late.on('error', reject)
    })
    late.write('{"kind":')
    expect((await put).status).toBe(200)
    open()
    await run.waitFor(WORKERS_LINE)
    late.end('"unavailable"}')
    expect(await lateAnswer).toEqual([200, 'close'])
    // The connection idle at the hand-over was left open, so a request its client sent meanwhile
    // is not lost: the next one on it is answered, with `Connection: close`, and then it closes.
    const keptAnswer = await new Promise<[number, string | undefined]>((resolve, reject) => {
      httpRequest(
        `${url}/api/v2/disciplines/history`,
        { headers: AUTH, agent: kept },
        (response) => {
          response.resume()
          resolve([response.statusCode!, response.headers.connection])
        },
      )
        .on('error', reject)
        .end()
    })
    expect(keptAnswer).toEqual([200, 'close'])
    kept.destroy()
    // The primary keeps no client's connection.
    await expect.poll(() => socketCount(run.child.pid!), { timeout: HANG_MS }).toBe(primarySockets)
    const before = await Promise.all(workers.map(socketCount))
    const agent = new Agent({ keepAlive: true, maxSockets: 4 })
    for (const session of ['early', 'late']) {
      const headers = { ...AUTH, 'x-taxonomy-mock-session': session }
      const answers = await Promise.all(
        [...Array(4).keys()].map(() => get(`${url}/api/v2/disciplines/history`, headers, agent)),
      )
      expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503, 503])
    }
    const after = await Promise.all(workers.map(socketCount))
    expect(after.map((count, i) => count - before[i]!)).toEqual([2, 2])
    agent.destroy()
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    // One log line per request, the primary's among them.
    expect(
      run.stdout.filter((line) => /^GET \/api\/v2\/disciplines\/history /.test(line)),
    ).toHaveLength(10)
  })

  it('holds handed connections to the headers timeout: 408 on each worker', async () => {
    const { url } = shared
    const { port } = new URL(url)
    // Two connections that never finish their headers: round robin gives one to each worker.
    const stalled = [0, 1].map(() => {
      const socket = connect(Number(port), '127.0.0.1')
      const sent = new Promise<void>((resolve) =>
        socket.once('connect', () =>
          socket.write('GET /api/v2/disciplines/history HTTP/1.1\r\nHost: x\r\n', () => resolve()),
        ),
      )
      let first = ''
      socket.on('data', (chunk: Buffer) => (first ||= String(chunk).split('\r\n')[0]!))
      const closed = track(
        new Promise<string>((resolve) => socket.on('close', () => resolve(first))),
      )
      return { sent, closed }
    })
    await Promise.all(stalled.map((connection) => connection.sent))
    // Held, not cut: both workers answer others while the two still wait for their headers.
    for (let i = 0; i < 4; i++) expect((await get(`${url}/__health`)).status).toBe(200)
    expect(stalled.map((connection) => connection.closed.settled())).toEqual([false, false])
    // Then the server's headers timeout (10 s, checked every second) answers each.
    expect(await Promise.all(stalled.map((connection) => connection.closed.promise))).toEqual([
      'HTTP/1.1 408 Request Timeout',
      'HTTP/1.1 408 Request Timeout',
    ])
  })

  it('SIGTERM before the workers serve: exit 0 once they have started, no worker left', async () => {
    const { run, open } = spawnHeld('--quiet')
    await run.waitFor(URL_LINE)
    const workers = await childPids(run.child.pid!)
    run.child.kill('SIGTERM')
    open()
    expect(await run.exit).toBe(0)
    for (const pid of workers) expect(isAlive(pid)).toBe(false)
    expect(run.stdout.some((line) => WORKERS_LINE.test(line))).toBe(false)
  })

  it('a worker killed before the workers serve is started again, as one killed later is, not the end of the server', async () => {
    const { run, open } = spawnHeld('--quiet')
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    const [killed, kept] = await childPids(run.child.pid!)
    process.kill(killed!, 'SIGKILL')
    // Or the end of the server, which the lines below then show.
    await until(
      () => run.stderr.some((line) => /starting another/.test(line)) || run.child.exitCode !== null,
      'the line that another worker starts',
    )
    expect(run.stderr).toEqual([
      `taxonomy-mock: worker ${killed} exited (SIGKILL); starting another in 0.1 s`,
    ])
    open()
    await run.waitFor(WORKERS_LINE)
    const workers = await childPids(run.child.pid!)
    expect(workers).toHaveLength(2)
    expect(workers).toContain(kept)
    expect((await get(`${url}/api/v2/disciplines/history`, AUTH)).status).toBe(200)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    for (const pid of workers) expect(isAlive(pid)).toBe(false)
  })

  it('a worker that crashes before the workers serve (SIGABRT: a fatal V8 error) ends the start, exit 1, not a loop of restarts', async () => {
    const { run } = spawnHeld('--quiet')
    await run.waitFor(URL_LINE)
    const workers = await childPids(run.child.pid!)
    process.kill(workers[0]!, 'SIGABRT')
    expect(await run.exit).toBe(1)
    expect(run.stderr).toEqual(['taxonomy-mock: a worker exited before it served (SIGABRT)'])
    for (const pid of workers) expect(isAlive(pid)).toBe(false)
  })

  it.each([['0'], ['x'], ['65'], ['1.5']])(
    '--workers %s: a one-line usage error, exit 2',
    async (value) => {
      const { code, stderr } = await runCli(['--workers', value])
      expect(code).toBe(2)
      expect(stderr.join('\n')).toMatch(/--workers must be a whole number from 1 to 64, or auto/)
    },
  )

  it('--watch: every worker serves the new file once the reload line is printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tm-workers-'))
    const file = join(dir, 'data.json')
    // Written here, as `export --size small --seed N` writes them: the CLI's export is not what this checks.
    writeFileSync(file, toFixtureJson(createTaxonomy({ size: 'small', seed: 1 })))
    const { run, url } = await startWorkers('--quiet', '--data', file, '--watch')
    const before = (await get(`${url}/api/v2/disciplines/x`, AUTH)).dataset
    const next = join(dir, 'next.json')
    writeFileSync(next, toFixtureJson(createTaxonomy({ size: 'small', seed: 2 })))
    renameSync(next, file)
    await run.waitFor(/reloaded --data file/)
    const after = new Set<string | undefined>()
    for (let i = 0; i < 6; i++) after.add((await get(`${url}/api/v2/disciplines/x`, AUTH)).dataset)
    expect(after.size).toBe(1)
    expect([...after][0]).not.toBe(before)
    expect(run.stdout.filter((line) => /reloaded --data file/.test(line))).toHaveLength(1)
  })

  it('--watch: a patch that no longer applies to the new file is gone from every process, also once the file changes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tm-workers-'))
    const file = join(dir, 'data.json')
    const taxonomy = createTaxonomy({ size: 'small', seed: 1 })
    const replace = (json: string) => {
      writeFileSync(join(dir, 'next.json'), json)
      renameSync(join(dir, 'next.json'), file)
    }
    writeFileSync(file, toFixtureJson(taxonomy))
    const { run, url } = await startWorkers('--quiet', '--data', file, '--watch')
    const domainId = taxonomy.domains[0]!.id
    const patch = { disciplines: [{ name: 'Empty Field', domain_ids: [domainId] }] }
    const put = await fetch(`${url}/__admin/sessions/p2/data`, {
      method: 'PUT',
      body: JSON.stringify(patch),
    })
    expect(put.status).toBe(200)
    // No request of the session meanwhile: no process has a reason to look at its patch.
    const fixture = taxonomy.toFixture()
    replace(
      toFixtureJson(
        loadTaxonomy({
          ...fixture,
          domains: fixture.domains.slice(1),
          disciplines: fixture.disciplines.filter((d) => !d.domain_ids.includes(domainId)),
          sub_disciplines: [],
          topics: [],
        }),
      ),
    )
    await run.waitFor(/reloaded --data file .*: 0 topics/)
    const data = await (await fetch(`${url}/__admin/sessions/p2/data`)).json()
    expect(data).toMatchObject({ session: 'p2', patch: null })
    replace(toFixtureJson(taxonomy))
    const reloaded = () => run.stdout.filter((line) => /reloaded --data file/.test(line)).length
    await until(() => reloaded() === 2, 'the second reload line')
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await get(`${url}/api/v2/disciplines/empty-field`, {
            ...AUTH,
            'x-taxonomy-mock-session': 'p2',
          })
        ).status,
      )
    expect(statuses).toEqual([404, 404, 404, 404])
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('--data a FIFO: every worker serves the data the primary read, which no worker could read again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tm-workers-'))
    const fifo = join(dir, 'data.fifo')
    execFileSync('mkfifo', [fifo])
    const fixture = toFixtureJson(createTaxonomy({ size: 'small', seed: 3 }))
    // A writer from the start (as `<(command)` has), which writes the file and closes: the
    // primary reads it to its end, once.
    const writer = openSync(fifo, 'r+')
    const written = new Promise<void>((resolve, reject) =>
      write(writer, fixture, (error) => {
        closeSync(writer)
        if (error) reject(error)
        else resolve()
      }),
    )
    const { url } = await startWorkers('--quiet', '--data', fifo)
    await written
    const sha = createHash('sha256').update(fixture).digest('hex')
    const slug = createTaxonomy({ size: 'small', seed: 3 }).disciplines[0]!.slug
    for (let i = 0; i < 6; i++) {
      const answer = await get(`${url}/api/v2/disciplines/${slug}`, AUTH)
      expect(answer.status).toBe(200)
      expect(answer.dataset).toContain(`sha256=${sha}`)
    }
  })

  it('--workers auto: one process per core', async () => {
    const run = spawnCli(['--port', '0', '--workers', 'auto'])
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    const cores = availableParallelism()
    // Counted as serving once they take connections (the primary alone before).
    if (cores > 1) await run.waitFor(new RegExp(`${cores} workers serve the port`))
    const metrics = await (await fetch(`${url}/__metrics`)).text()
    expect(metrics).toMatch(new RegExp(`^taxonomy_mock_workers ${cores}$`, 'm'))
    expect(await childPids(run.child.pid!)).toHaveLength(cores > 1 ? cores : 0)
  })

  it('--tls: every worker serves the one certificate written for clients, over HTTPS only', async () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'tm-workers-tls-')), 'ca.pem')
    const { run, url } = await startWorkers('--quiet', '--tls', '--tls-ca-out', ca)
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const pem = readFileSync(ca, 'utf8')
    const printed = run.stdout.find((line) => line.startsWith('  sha256:'))
    expect(printed).toBe(`  sha256:          ${new X509Certificate(pem).fingerprint256}`)
    const workers = await childPids(run.child.pid!)
    const before = await Promise.all(workers.map(socketCount))
    // Eight TLS connections held open at once reach both workers (as over HTTP, above), and each
    // is shown the certificate that was written.
    const sockets = await Promise.all(
      [...Array(8).keys()].map(
        () =>
          new Promise<import('node:tls').TLSSocket>((resolve, reject) => {
            const { hostname, port } = new URL(url)
            const socket = connectTls({ host: hostname, port: Number(port), ca: pem }, () =>
              resolve(socket),
            )
            socket.on('error', reject)
          }),
      ),
    )
    const gained = (await Promise.all(workers.map(socketCount))).map((n, i) => n - before[i]!)
    expect(Math.min(...gained)).toBeGreaterThanOrEqual(2)
    for (const socket of sockets) {
      expect(socket.getPeerX509Certificate()!.fingerprint256).toBe(
        new X509Certificate(pem).fingerprint256,
      )
      socket.destroy()
    }
    for (let i = 0; i < 6; i++) {
      const answer = await getTls(`${url}/api/v2/disciplines/history`, pem)
      expect(answer.status).toBe(200)
      expect(JSON.parse(answer.body).slug).toBe('history')
    }
    // Plain HTTP to the HTTPS port: the JSON 400 a single process gives, from whichever worker.
    const plain = await get(`${url.replace('https:', 'http:')}/api/v2/disciplines/history`, AUTH)
    expect(plain.status).toBe(400)
    expect(plain.body).toMatch(/use https:\/\//)
    // A reset over TLS on each worker: the connection it cut kept a worker's count of handed
    // connections, so the first SIGTERM never ended it (a hang, caught by the test's timeout).
    for (let i = 0; i < 4; i++)
      await expect(
        getTls(`${url}/api/v2/disciplines/history`, pem, { prefer: 'scenario=reset' }),
      ).rejects.toThrow()
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('--tls-cert and --tls-key: served by every worker, and by the primary while they start', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tm-workers-tls-'))
    const pair = createSelfSignedCertificate(['localhost', '127.0.0.1'])
    writeFileSync(join(folder, 'cert.pem'), pair.cert)
    writeFileSync(join(folder, 'key.pem'), pair.key)
    const { run, open } = spawnHeld(
      '--quiet',
      '--tls-cert',
      join(folder, 'cert.pem'),
      '--tls-key',
      join(folder, 'key.pem'),
    )
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    expect(url).toMatch(/^https:/)
    const expected = new X509Certificate(pair.cert).fingerprint256
    // The workers are held: the primary answers, over TLS, with the given certificate.
    expect(await servedFingerprint(url, pair.cert)).toBe(expected)
    expect((await getTls(`${url}/api/v2/disciplines/history`, pair.cert)).status).toBe(200)
    open()
    await run.waitFor(WORKERS_LINE)
    // The key reached the workers over IPC: it is in no process's environment or command line.
    const keyBody = pair.key.split('\n')[1]!
    for (const pid of [run.child.pid!, ...(await childPids(run.child.pid!))]) {
      expect(readFileSync(`/proc/${pid}/environ`, 'latin1')).not.toContain(keyBody)
      expect(readFileSync(`/proc/${pid}/cmdline`, 'latin1')).not.toContain(keyBody)
    }
    for (let i = 0; i < 4; i++) {
      expect(await servedFingerprint(url, pair.cert)).toBe(expected)
      expect((await getTls(`${url}/api/v2/disciplines/history`, pair.cert)).status).toBe(200)
    }
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    expect(run.stderr).toEqual([])
  })

  it('--tls: a client resumes its TLS session on whichever process its next connection reaches', async () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'tm-workers-tls-')), 'ca.pem')
    const { run, open } = spawnHeld('--quiet', '--tls', '--tls-ca-out', ca)
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    const pem = readFileSync(ca, 'utf8')
    // The workers are held: the primary answers, and gives the first session.
    let answer = await resumeTls(url, pem)
    expect(answer).toMatchObject({ status: 200, reused: false })
    open()
    await run.waitFor(WORKERS_LINE)
    // Connections go to the workers in turn, and each resumes the session the primary gave.
    let session = answer.next
    for (let i = 0; i < 4; i++) {
      answer = await resumeTls(url, pem, session)
      expect(answer).toMatchObject({ status: 200, reused: true })
      // A resumed session brings no new ticket: the same one is offered again.
      session = answer.next ?? session
    }
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
  })

  it('--tls-cert naming a missing file: exit 2, one line, before any worker starts', async () => {
    const missing = join(tmpdir(), 'tm-no-such-cert.pem')
    const run = spawnCli([
      '--port',
      '0',
      '--workers',
      '2',
      '--tls-cert',
      missing,
      '--tls-key',
      missing,
    ])
    expect(await run.exit).toBe(2)
    expect(run.stderr).toEqual([
      `taxonomy-mock: cannot read --tls-cert file ${JSON.stringify(missing)}: no such file`,
    ])
    expect(run.stdout).toEqual([])
  })

  it('--tls with a --tls-ca-out that cannot be written: exit 1, one line, before any worker starts', async () => {
    // Its folder cannot be made: a file has that name.
    const notFolder = join(mkdtempSync(join(tmpdir(), 'tm-ca-')), 'not-a-folder')
    writeFileSync(notFolder, '')
    // Workers held at their start for good: the failure is said without waiting for them.
    const { run } = spawnHeld('--tls', '--tls-ca-out', join(notFolder, 'ca.pem'))
    expect(await run.exit).toBe(1)
    expect(run.stderr).toEqual([
      expect.stringMatching(
        /^taxonomy-mock: cannot write --tls-ca-out file .*: ".*" is a file, not a folder$/,
      ),
    ])
    expect(await childPids(run.child.pid!)).toEqual([])
  })

  it("--host '[::1]': the URL line holds the address in one pair of brackets", async () => {
    const run = spawnCli(['--port', '0', '--workers', '2', '--quiet', '--host', '[::1]'])
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+$/)
    await run.waitFor(WORKERS_LINE)
    expect((await get(`${url}/__health`)).status).toBe(200)
  })

  it('a TAXONOMY_MOCK_CLUSTER_STORE inherited from the environment does not make the workers ask for a store', async () => {
    // The primary's own variable to its workers, named in no doc: without --store it says nothing.
    const run = spawnCli(['--port', '0', '--workers', '2', '--quiet'], {
      TAXONOMY_MOCK_CLUSTER_STORE: '1',
    })
    const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
    await run.waitFor(WORKERS_LINE)
    expect((await get(`${url}/api/v2/disciplines/history`, AUTH)).status).toBe(200)
  })

  it('a stop signal while the primary reads --data: exit 0 at once, no worker started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tm-workers-'))
    const fifo = join(dir, 'never-ends.fifo')
    execFileSync('mkfifo', [fifo])
    // A writer that never writes nor closes: the read would wait for its 5 s bound.
    const writer = openSync(fifo, 'r+')
    try {
      const run = spawnCli(['--port', '0', '--workers', '2', '--data', fifo])
      // Once the primary reads the FIFO: one of its descriptors is it.
      await until(() => openCount(run.child.pid!, fifo) > 0, 'the primary reading the FIFO')
      run.child.kill('SIGTERM')
      expect(await run.exit).toBe(0)
      expect(run.stderr).toEqual([])
      expect(run.stdout).toEqual([])
    } finally {
      closeSync(writer)
    }
  })

  it('a second signal stops it even when a worker cannot stop (SIGSTOP): killed after a moment', async () => {
    const { run } = await startWorkers('--quiet')
    const [stuck] = await childPids(run.child.pid!)
    process.kill(stuck!, 'SIGSTOP')
    run.child.kill('SIGTERM')
    // Another signal than the first: the same one again within 0.5 s would be one stop.
    run.child.kill('SIGINT')
    expect(await run.exit).toBe(0)
    // Not left behind, stopped: gone.
    await expect.poll(() => isAlive(stuck!), { timeout: HANG_MS }).toBe(false)
  })

  it('a second signal cuts the connections whose clients do not read, on every worker: none is killed', async () => {
    const exits = join(mkdtempSync(join(tmpdir(), 'tm-exits-')), 'exits')
    const preload = fileURLToPath(new URL('../helpers/worker-exits.cjs', import.meta.url))
    const { run, url } = await serving(
      spawnCli(['--port', '0', '--workers', '2', '--quiet'], {
        NODE_OPTIONS: `--require ${JSON.stringify(preload)}`,
        TAXONOMY_MOCK_TEST_EXITS: exits,
      }),
    )
    const { port } = new URL(url)
    // Connections that pipeline far more than the socket buffers hold and never read: their
    // answers wait for the 10 s grace, on both workers (round-robin).
    const unread = [...Array(4).keys()].map(() => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(1000)),
      )
      socket.pause()
      socket.on('error', () => {})
      return socket
    })
    try {
      await until(
        async () =>
          (await Promise.all((await childPids(run.child.pid!)).map(socketCount))).every(
            (count) => count >= 3,
          ),
        'both workers hold unread connections',
      )
      run.child.kill('SIGTERM')
      // Another signal than the first: the same one again within 0.5 s would be one stop.
      run.child.kill('SIGINT')
      expect(await run.exit).toBe(0)
      expect(readFileSync(exits, 'utf8').trim().split('\n')).toEqual(['0 null', '0 null'])
    } finally {
      for (const socket of unread) socket.destroy()
    }
  })

  it('a port in use: exit 1 with the reason, no worker left behind', async () => {
    const { url } = shared
    const port = new URL(url).port
    const second = spawnCli(['--port', port, '--workers', '2'])
    expect(await second.exit).toBe(1)
    // One line, from the primary, not one from each worker.
    expect(second.stderr).toEqual([
      expect.stringMatching(/^taxonomy-mock: port \d+ is already in use/),
    ])
    expect(await childPids(second.child.pid!)).toEqual([])
  })
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
