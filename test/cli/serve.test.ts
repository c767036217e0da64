import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { fixturePath } from '../helpers/fixtures.js'
import { spawnCli } from '../helpers/cli.js'
import { until } from '../helpers/clock.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /

async function startCli(args: string[], env: Record<string, string> = {}) {
  const run = spawnCli(['--port', '0', ...args], env)
  const line = await run.waitFor(URL_LINE)
  return { run, url: URL_LINE.exec(line)![1]!, line }
}

const medium = createTaxonomy()

it('prints the URL line with the real port, seed and key, then a curl and example slugs', async () => {
  const { run, url, line } = await startCli([])
  expect(line).toBe(
    `taxonomy-mock listening on ${url} (seed 42, size medium; key: taxonomy-mock-key)`,
  )
  await run.waitFor(/sub_disciplines:/)
  const curl = run.stdout.find((l) => l.includes('curl'))!
  expect(curl).toContain(
    `curl -H 'Authorization: Bearer taxonomy-mock-key' ${url}/api/v2/disciplines/${medium.disciplines[0]!.slug}`,
  )
  const examples = run.stdout.find((l) => l.trim().startsWith('disciplines:'))!
  for (const slug of examples
    .split(':')[1]!
    .split(',')
    .map((s) => s.trim())) {
    expect(medium.findDiscipline(slug), slug).toBeDefined()
  }
})

it('answers the curl it printed, then closes on SIGTERM with exit code 0', async () => {
  const { run, url } = await startCli([])
  const response = await fetch(`${url}/api/v2/disciplines/${medium.disciplines[0]!.slug}`, {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
  })
  expect(response.status).toBe(200)
  expect(await run.waitFor(/^GET \/api\/v2\/disciplines\//)).toMatch(
    /^GET \/api\/v2\/disciplines\/[a-z-]+ 200 \d+\.\dms$/,
  )
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  expect(run.stderr).toEqual([])
})

it('on SIGTERM, sends answers still queued for a client that reads slowly whole before it exits', async () => {
  const { run, url } = await startCli(['--quiet'])
  const admin = `${url}/__admin/sessions/slow`
  const put = await fetch(`${admin}/data`, { method: 'PUT', body: '{"preset":"huge-lists"}' })
  expect(put.status).toBe(200)
  // Two 7.6 MB answers, more than the kernel holds for a client that does not read yet.
  const get =
    'GET /api/v2/sub_disciplines/huge-sub-discipline HTTP/1.1\r\nHost: x\r\n' +
    'Authorization: Bearer taxonomy-mock-key\r\nX-Taxonomy-Mock-Session: slow\r\n\r\n'
  const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.write(get + get))
  socket.pause()
  let reply = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => (reply += chunk))
  const closed = new Promise((resolve) => socket.on('close', resolve))
  await until(async () => {
    const journal = (await (await fetch(`${admin}/requests`)).json()) as unknown[]
    return journal.length >= 2
  }, 'both requests journaled')
  run.child.kill('SIGTERM')
  socket.resume()
  await closed
  expect(await run.exit).toBe(0)
  const answers = reply.split(/(?=HTTP\/1\.1 )/)
  expect(answers.map((answer) => answer.slice(9, 12))).toEqual(['200', '200'])
  for (const answer of answers) {
    const [head, body] = answer.split('\r\n\r\n') as [string, string]
    expect(body.length).toBe(Number(/content-length: (\d+)/i.exec(head)![1]))
  }
})

it('closes on SIGINT with exit code 0', async () => {
  const { run } = await startCli(['--quiet'])
  run.child.kill('SIGINT')
  expect(await run.exit).toBe(0)
})

it('answers the readiness probe', async () => {
  const { url } = await startCli(['--quiet'])
  expect((await fetch(`${url}/__health`)).status).toBe(200)
})

it('logs nothing per request with --quiet, and never a key without it', async () => {
  const quiet = await startCli(['--quiet', '--api-key', 'secret-key-123'])
  await fetch(`${quiet.url}/api/v2/disciplines/x`, {
    headers: { authorization: 'Bearer secret-key-123' },
  })
  const loud = await startCli(['--api-key', 'secret-key-123'])
  await fetch(`${loud.url}/api/v2/disciplines/x`, {
    headers: { authorization: 'Bearer secret-key-123' },
  })
  await loud.run.waitFor(/^GET /)
  expect(quiet.run.stdout).toHaveLength(1)
  expect([...quiet.run.stdout, ...loud.run.stdout].join('\n')).not.toContain('secret-key-123')
  expect(loud.line).toContain('key: (hidden)')
})

it('takes keys, seed and port from the environment, and flags win', async () => {
  const { url, line } = await startCli(['--seed', '9'], {
    TAXONOMY_MOCK_API_KEYS: 'alpha,beta',
    TAXONOMY_MOCK_SEED: '5',
    TAXONOMY_MOCK_PORT: '1',
  })
  expect(line).toContain('(seed 9, size medium; keys: (hidden), (hidden))')
  const slug = createTaxonomy({ seed: 9 }).disciplines[0]!.slug
  for (const key of ['alpha', 'beta']) {
    expect(
      (
        await fetch(`${url}/api/v2/disciplines/${slug}`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(200)
  }
})

it('serves a --data fixture file instead of generated data', async () => {
  const { url, line } = await startCli(['--data', fixturePath('minimal.json'), '--any-key'])
  expect(line).toContain(`(data ${fixturePath('minimal.json')}; key: any non-empty key)`)
  const minimal = (await import('../../fixtures/minimal.json', { with: { type: 'json' } })).default
  const response = await fetch(
    `${url}/api/v2/sub_disciplines/${minimal.sub_disciplines[0]!.slug}`,
    { headers: { authorization: 'Bearer whatever' } },
  )
  expect((await response.json()).topics_count).toBe(1)
})

it('applies --delay and --no-cors', async () => {
  // A delay no test waits out: the answer is held (a request sent after it, asking for none, comes
  // back first), the journal says how long, and a stop sends it at once. How a delay is timed:
  // test/server/scenarios.test.ts, on a fake clock.
  const { run, url } = await startCli(['--delay', '600000', '--no-cors', '--quiet'])
  let held = true
  const delayed = fetch(`${url}/api/v2/disciplines/x`).finally(() => (held = false))
  const journal = async () =>
    (await (await fetch(`${url}/__admin/sessions/default/requests`)).json()) as { ms: number }[]
  await until(async () => (await journal()).length > 0, 'the delayed request journaled')
  const first = await fetch(`${url}/api/v2/disciplines/y`, { headers: { prefer: 'delay=0' } })
  expect(first.status).toBe(401)
  expect(held).toBe(true)
  expect((await journal()).map((entry) => entry.ms)).toEqual([600_000, 0])
  // The probe is not delayed: a health check must not fail a server that serves.
  expect((await fetch(`${url}/__health`)).status).toBe(200)
  expect(held).toBe(true)
  run.child.kill('SIGTERM')
  const response = await delayed
  expect(response.status).toBe(401)
  expect(response.headers.get('access-control-allow-origin')).toBeNull()
  expect(await run.exit).toBe(0)
})

it('exits 1 with one line naming the port when it is in use, and serves nothing', async () => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  const port = (blocker.address() as { port: number }).port
  const run = spawnCli(['--port', String(port)])
  expect(await run.exit).toBe(1)
  expect(run.stderr).toEqual([
    `taxonomy-mock: port ${port} is already in use on "127.0.0.1"; pick another with --port (0 = any free port)`,
  ])
  expect(run.stdout).toEqual([])
  // The port from the environment: the message names the variable to change.
  const fromEnv = spawnCli([], { TAXONOMY_MOCK_PORT: String(port) })
  expect(await fromEnv.exit).toBe(1)
  expect(fromEnv.stderr).toEqual([
    `taxonomy-mock: port ${port} is already in use on "127.0.0.1"; pick another with TAXONOMY_MOCK_PORT (0 = any free port)`,
  ])
  blocker.close()
})

it('exits 1 with one line when the host cannot be bound', async () => {
  const run = spawnCli(['--port', '0', '--host', '203.0.113.7'])
  expect(await run.exit).toBe(1)
  expect(run.stderr).toEqual([
    'taxonomy-mock: cannot bind --host "203.0.113.7": no such address on this machine',
  ])
})

it('quotes a --data file name holding a line break in the banner, which stays one line', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-')), 'a\n\u001b[2Jb.json')
  writeFileSync(file, readFileSync(fixturePath('minimal.json')))
  const { line } = await startCli(['--data', file, '--quiet'])
  expect(line).toContain(`(data ${JSON.stringify(file)}; key: taxonomy-mock-key)`)
})

it('names its data in the banner and on every answer: seed and size, or the --data file SHA-256', async () => {
  const generated = await startCli(['--size', 'small'])
  const line = await generated.run.waitFor(/^ {2}dataset:/)
  const header = `taxonomy-mock/v1; seed=42; size=small; digest=3fc86cf9360b6f4f`
  expect(line).toBe(`  dataset:         ${header}`)
  const answer = await fetch(`${generated.url}/api/v2/disciplines/nope`)
  expect(answer.headers.get('x-taxonomy-mock-dataset')).toBe(header)

  const file = fixturePath('minimal.json')
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
  const loaded = await startCli(['--data', file, '--quiet'])
  const health = (await (await fetch(`${loaded.url}/__health`)).json()) as {
    dataset: { sha256: string }
  }
  expect(health.dataset.sha256).toBe(sha256)
})

it('keeps its default memory budget to half the heap Node was given (a 1 GiB container gets about 524 MB)', async () => {
  // Node sizes its heap from the container's memory: the 512 MB default there ended the process
  // with "JavaScript heap out of memory" once admin patches filled it.
  const NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=96`.trim()
  // Half of the old generation: V8's whole heap limit also counts the young one (192 MB on Node 24).
  const budget = 48 * 1024 ** 2
  expect(budget).toBeLessThan(512 * 1024 ** 2)
  const { url } = await startCli(['--size', 'small', '--quiet'], { NODE_OPTIONS })
  // About 800 KB of JSON each (a patch is at most 1 MB), counted ten times: sessions take them
  // until the budget is full, well before the heap is.
  const patch = JSON.stringify(
    createDisciplinePatch({
      name: 'Wide',
      domainIds: [createTaxonomy({ size: 'small' }).domains[0]!.id],
      subDisciplines: 5_000,
    }),
  )
  let refused: Response | undefined
  for (let n = 0; n < 40 && refused === undefined; n++) {
    const response = await fetch(`${url}/__admin/sessions/s${n}/data`, {
      method: 'PUT',
      body: patch,
    })
    if (response.status === 200) await response.arrayBuffer()
    else refused = response
  }
  expect(refused?.status).toBe(413)
  expect(((await refused!.json()) as { error: string }).error).toContain(
    `would pass the memory budget of ${budget} bytes`,
  )
  expect((await fetch(`${url}/__health`)).status).toBe(200)
})

it('holds its sessions to --memory-budget MB: a patch past it is a 413 naming the budget in bytes', async () => {
  const { url } = await startCli(['--size', 'small', '--memory-budget', '1'])
  const small = createTaxonomy({ size: 'small' })
  // About 240 KB of JSON, counted ten times.
  const patch = createDisciplinePatch({
    name: 'Wide',
    domainIds: [small.domains[0]!.id],
    subDisciplines: 1_500,
  })
  const response = await fetch(`${url}/__admin/sessions/s/data`, {
    method: 'PUT',
    body: JSON.stringify(patch),
  })
  expect(response.status).toBe(413)
  expect(((await response.json()) as { error: string }).error).toMatch(
    /would pass the memory budget of 1048576 bytes/,
  )
})
