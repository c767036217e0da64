// `serve --upstream`: a second kit server on loopback stands for the real service.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { toDisciplineRecord } from '../../src/core/records.js'
import type { FixtureDiscipline } from '../../src/core/types.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { runCli, spawnCli, type CliRun } from '../helpers/cli.js'
import { until } from '../helpers/clock.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { ajv } from '../helpers/openapi-schemas.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET } from '../helpers/targets.js'

const ENV = { TAXONOMY_API_KEY: SECRET }
const MOCK_KEY = { authorization: 'Bearer taxonomy-mock-key' }
const source7 = createTaxonomy({ seed: 7, size: 'small' })
const SLUG = source7.disciplines[0]!.slug
const SUB = source7.subDisciplines.at(-1)!.slug
const URL_PATTERN = /http:\/\/127\.0\.0\.1:\d+/

const tempDir = () => mkdtempSync(join(tmpdir(), 'taxonomy-mock-upstream-'))

/** The real service: a kit server with other data and only the upstream's key. */
const startUpstream = () => startTestServer({ seed: 7, size: 'small', apiKeys: [SECRET] })

async function serve(argv: string[]): Promise<{ run: CliRun; url: string }> {
  const run = spawnCli(['--port', '0', '--quiet', ...argv], ENV)
  const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
  return { run, url }
}

/** `serve`'s flags for capturing from `upstream` into `data`. */
const capturing = (data: string, upstream: string) => [
  '--data',
  data,
  '--upstream',
  upstream,
  '--on-miss',
  'capture',
]

async function get(url: string, headers: Record<string, string> = MOCK_KEY) {
  const response = await fetch(url, { headers })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

/** The default session's journal, each entry checked against the OpenAPI document's schema. */
async function journal(url: string) {
  const entries = (await (
    await fetch(`${url}/__admin/sessions/default/requests`)
  ).json()) as Record<string, unknown>[]
  const valid = ajv.getSchema('urn:taxonomy:JournalEntry')!
  for (const entry of entries) expect(valid(entry), JSON.stringify(valid.errors)).toBe(true)
  return entries
}

/** Matches the capture line after the first `n`, seen or to come. */
function nthCapture(n: number): RegExp {
  let seen = 0
  const test = (line: string) => line.startsWith('taxonomy-mock: captured ') && ++seen > n
  return { test } as unknown as RegExp
}

/** Headers a relay may differ in: those of one connection, and the time of sending. */
const OWN_HEADERS = new Set(['connection', 'keep-alive', 'date', 'transfer-encoding'])
const relayedHeaders = (headers: Headers) => [...headers].filter(([name]) => !OWN_HEADERS.has(name))

it('passthrough without --data relays every lookup byte for byte, answers and errors alike, with the key of TAXONOMY_API_KEY, and journals it as the upstream', async () => {
  const upstream = await startUpstream()
  const { run, url } = await serve(['--upstream', upstream.url, '--on-miss', 'passthrough'])
  for (const path of [
    `/api/v2/disciplines/${SLUG}`,
    `/api/v2/sub_disciplines/${SUB}`,
    '/api/v2/disciplines/no-such-slug',
  ]) {
    const relayed = await get(`${url}${path}`)
    const direct = await get(`${upstream.url}${path}`, { authorization: `Bearer ${SECRET}` })
    expect(relayed.status, path).toBe(direct.status)
    expect(relayed.body, path).toBe(direct.body)
    expect(relayedHeaders(relayed.headers), path).toEqual(relayedHeaders(direct.headers))
  }
  // The client's own key is the mock's: without it, no request reaches the upstream.
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`, {})).status).toBe(401)
  const entries = await journal(url)
  expect(entries.map((entry) => [entry.reason, entry.source, entry.status])).toEqual([
    ['upstream', 'upstream', 200],
    ['upstream', 'upstream', 200],
    ['upstream', 'upstream', 404],
    ['missing-key', 'fixture', 401],
  ])
  for (const text of [JSON.stringify(entries), ...run.stdout, ...run.stderr])
    expect(findKeyLeak(text, SECRET)).toBeUndefined()
})

it('fail with --data answers the spec 404 for a slug the fixture lacks, its journal entry naming the slug and the command that would capture it, and sends nothing upstream', async () => {
  const upstream = await startUpstream()
  const dir = tempDir()
  const data = join(dir, 'taxonomy.json')
  writeFileSync(data, toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  const known = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!.slug
  const { url } = await serve(['--data', data, '--upstream', upstream.url, '--on-miss', 'fail'])
  const missing = await get(`${url}/api/v2/disciplines/${SLUG}`)
  expect({ status: missing.status, body: missing.body }).toEqual({
    status: 404,
    body: '{"error":"Resource not found"}',
  })
  expect((await get(`${url}/api/v2/disciplines/${known}`)).status).toBe(200)
  const [miss, hit] = await journal(url)
  expect(miss).toMatchObject({ reason: 'not-recorded', source: 'fixture', slug: SLUG })
  expect(miss!.hint).toBe(
    `no discipline "${SLUG}" in the data; capture it with: taxonomy-mock serve --data ${data} --upstream ${upstream.url} --on-miss capture`,
  )
  expect(hit).toMatchObject({ reason: 'ok', source: 'fixture' })
  expect(hit).not.toHaveProperty('hint')
  const upstreamJournal = await journal(upstream.url)
  expect(upstreamJournal).toEqual([])
})

it("fail's capture hint keeps the server's --order and --upstream-timeout, without which the command it names would refuse the capture or time out", async () => {
  const upstream = await startUpstream()
  const dir = tempDir()
  const data = join(dir, 'taxonomy.json')
  writeFileSync(data, toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  const { url } = await serve([
    '--data',
    data,
    '--upstream',
    upstream.url,
    '--on-miss',
    'fail',
    '--order',
    'id',
    '--upstream-timeout',
    '30000',
  ])
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(404)
  const [miss] = await journal(url)
  expect(miss!.hint).toBe(
    `no discipline "${SLUG}" in the data; capture it with: taxonomy-mock serve --data ${data} --upstream ${upstream.url} --on-miss capture --order id --upstream-timeout 30000`,
  )
})

it('shows an upstream URL whose path holds the key with the key redacted: in the URL line and in the capture hint an answer journals', async () => {
  const upstream = await startUpstream()
  const dir = tempDir()
  const data = join(dir, 'taxonomy.json')
  writeFileSync(data, toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  const run = spawnCli(
    [
      '--port',
      '0',
      '--data',
      data,
      '--upstream',
      `${upstream.url}/v/${SECRET}`,
      '--on-miss',
      'fail',
    ],
    ENV,
  )
  const line = await run.waitFor(URL_PATTERN)
  expect(line).toContain(`upstream ${upstream.url}/v/[API key], on miss fail`)
  const url = URL_PATTERN.exec(line)![0]
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(404)
  const [miss] = await journal(url)
  expect(miss!.hint).toContain(`--upstream '${upstream.url}/v/[API key]' --on-miss capture`)
  run.child.kill('SIGTERM')
  await run.exit
  expect(findKeyLeak([...run.stdout, ...run.stderr].join('\n'), SECRET)).toBeUndefined()
})

it("hides the upstream's key and the mock's own, typed by a client into a slug or a query, from the request log and the journal, its slug and capture hint too, in each mode", async () => {
  const upstream = await startUpstream()
  const dir = tempDir()
  const data = join(dir, 'taxonomy.json')
  writeFileSync(data, toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  const MOCK = 'own-mock-key-81c3e0d2'
  // A closed port: an upstream that gives no answer says so on stderr, naming what it was asked.
  const down = await startUpstream()
  await down.close()
  const modes: [string, string[]][] = [
    [upstream.url, ['--on-miss', 'passthrough']],
    [upstream.url, ['--data', data, '--on-miss', 'fail']],
    [down.url, ['--on-miss', 'passthrough']],
  ]
  for (const [target, mode] of modes) {
    const run = spawnCli(['--port', '0', '--api-key', MOCK, '--upstream', target, ...mode], ENV)
    const url = URL_PATTERN.exec(await run.waitFor(URL_PATTERN))![0]
    // A slug that is the mock's key, or holds the upstream's, is not asked of the upstream (the
    // URL would take it to the service's logs): a 404. One that holds the mock's key among other
    // words may be a record's (`data-analytics` under `--api-key analytics`): asked as usual.
    const asked = `x-${MOCK}-y`
    for (const path of [
      `/api/v2/disciplines/${MOCK}`,
      `/api/v2/disciplines/${asked}`,
      `/api/v2/disciplines/${SECRET}`,
      `/api/v2/sub_disciplines/x${SECRET}`,
      `/api/v2/disciplines/${SLUG}?q=${SECRET}`,
    ]) {
      const status = (await get(`${url}${path}`, { authorization: `Bearer ${MOCK}` })).status
      const relayed = path.includes('?') ? 200 : 404
      const fetched = path.includes('?') || path.includes(asked)
      expect(status, path).toBe(
        !fetched || mode.includes('fail') ? 404 : target === down.url ? 502 : relayed,
      )
    }
    // A key in a Prefer value by mistake: the 400 does not quote it back into the HAR file.
    const prefer = { authorization: `Bearer ${MOCK}`, prefer: `scenario=${SECRET}` }
    expect((await get(`${url}/api/v2/disciplines/${SLUG}`, prefer)).status).toBe(400)
    const entries = await journal(url)
    expect(entries).toHaveLength(6)
    const har = await (await fetch(`${url}/__admin/sessions/default/requests.har`)).text()
    await run.waitFor(/requests\.har/)
    run.child.kill('SIGTERM')
    await run.exit
    // The banner names the mock's key on purpose: the request log's lines must not.
    const requestLines = run.stdout.filter((line) => line.includes('GET /api/'))
    expect(requestLines).toHaveLength(6)
    const log = [...requestLines, ...run.stderr]
    for (const [text, key] of [
      [JSON.stringify(entries), SECRET],
      [JSON.stringify(entries), MOCK],
      [har, SECRET],
      [har, MOCK],
      [log.join('\n'), SECRET],
      [log.join('\n'), MOCK],
    ] as const)
      expect(findKeyLeak(text, key), `${mode.join(' ')}: ${text}`).toBeUndefined()
  }
  // What reached the upstream (asked in the one mode that reached it): no slug with a key of its.
  const reached = await journal(upstream.url)
  expect(reached.map((entry) => entry.slug)).toEqual([`x-${MOCK}-y`, SLUG])
})

it('capture adds the record with its closure to the --data file, written whole; the next lookup is the fixture, byte for byte the upstream; capturing again from the same start gives the same bytes', async () => {
  const upstream = await startUpstream()
  const captureInto = async (file: string) => {
    const { run, url } = await serve(capturing(file, upstream.url))
    const relayed = await get(`${url}/api/v2/disciplines/${SLUG}`)
    await run.waitFor(/^taxonomy-mock: captured discipline /)
    const served = await get(`${url}/api/v2/disciplines/${SLUG}`)
    const entries = await journal(url)
    run.child.kill('SIGTERM')
    expect(await run.exit).toBe(0)
    return { run, relayed, served, entries }
  }
  const dir = tempDir()
  const first = join(dir, 'first', 'taxonomy.json')
  const { run, relayed, served, entries } = await captureInto(first)
  const direct = await get(`${upstream.url}/api/v2/disciplines/${SLUG}`, {
    authorization: `Bearer ${SECRET}`,
  })
  expect(relayed.body).toBe(direct.body)
  expect(served.body).toBe(direct.body)
  expect(entries.map((entry) => entry.source)).toEqual(['upstream', 'fixture'])
  const text = readFileSync(first, 'utf8')
  const captured = loadTaxonomy(text)
  // Closed as `record` closes: the discipline, all its sub-disciplines and their other parents.
  const discipline = captured.disciplines.find((d) => d.slug === SLUG)!
  expect(discipline).toBeDefined()
  for (const sub of source7.subDisciplines.filter((s) =>
    s.discipline_ids.includes(source7.disciplines[0]!.id),
  ))
    expect(captured.subDisciplines.map((s) => s.id)).toContain(sub.id)
  expect(readdirSync(join(dir, 'first'))).toEqual(['taxonomy.json'])
  for (const output of [text, ...run.stdout, ...run.stderr])
    expect(findKeyLeak(output, SECRET)).toBeUndefined()

  const second = join(dir, 'second.json')
  await captureInto(second)
  expect(readFileSync(second, 'utf8')).toBe(text)
})

it('names the data by the SHA-256 of the file a capture wrote, so export --from URL --data FILE rebuilds it', async () => {
  const upstream = await startUpstream()
  const dir = tempDir()
  const data = join(dir, 'taxonomy.json')
  writeFileSync(data, toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
  const { run, url } = await serve(capturing(data, upstream.url))
  await get(`${url}/api/v2/disciplines/${SLUG}`)
  await run.waitFor(/^taxonomy-mock: captured discipline /)
  const sha256 = createHash('sha256').update(readFileSync(data)).digest('hex')
  const served = await get(`${url}/api/v2/disciplines/${SLUG}`)
  expect(served.headers.get('x-taxonomy-mock-dataset')).toContain(`; sha256=${sha256};`)
  const health = (await (await fetch(`${url}/__health`)).json()) as { dataset: object }
  expect(health.dataset).toMatchObject({ sha256 })
  const out = join(dir, 'export.json')
  const exported = await runCli([
    'export',
    '--from',
    url,
    '--session',
    'default',
    '--data',
    data,
    '--out',
    out,
  ])
  expect(exported.code, exported.stderr.join('\n')).toBe(0)
  expect(readFileSync(out)).toEqual(readFileSync(data))
})

it("captures nothing, in one line, when the data holds the record's id under another slug (renamed upstream), and leaves the file as it is", async () => {
  const upstream = await startUpstream()
  const fixture = JSON.parse(toFixtureJson(source7))
  const { id } = fixture.disciplines[0]
  fixture.disciplines[0].slug = 'renamed-here'
  fixture.disciplines[1].slug = 'renamed-too'
  const data = join(tempDir(), 'taxonomy.json')
  writeFileSync(data, JSON.stringify(fixture))
  const { run, url } = await serve(capturing(data, upstream.url))
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(200)
  await until(
    () => run.stderr.length > 0 || run.stdout.some((line) => line.includes(' captured ')),
    'the capture to end',
  )
  expect(run.stderr).toEqual([
    `taxonomy-mock: cannot capture discipline "${SLUG}": the service gives it id "${id}", which the data's discipline "renamed-here" has (renamed on the service?); nothing captured; not tried again for 60 s`,
  ])
  expect(run.stdout.filter((line) => line.includes('captured'))).toEqual([])
  expect(readFileSync(data, 'utf8')).toBe(JSON.stringify(fixture))
  // Asked again, it is relayed, and not captured again: no second crawl of the real service. A
  // capture of another record (renamed too), queued after any of it, says when the queue has run.
  const requestsBefore = await upstreamRequests(upstream.url)
  const other = source7.disciplines[1]!.slug
  expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(200)
  expect((await get(`${url}/api/v2/disciplines/${other}`)).status).toBe(200)
  await until(() => run.stderr.length > 1, 'the second capture to end')
  expect(run.stderr[1]).toContain(`cannot capture discipline "${other}"`)
  expect(run.stderr.filter((line) => line.includes(`discipline "${SLUG}"`))).toHaveLength(1)
  // The relayed lookup and none of the first one's crawl.
  const asked = (await upstreamRequests(upstream.url)).slice(requestsBefore.length)
  expect(asked.filter((path) => path === `/api/v2/disciplines/${SLUG}`)).toHaveLength(1)
})

it('captures a discipline whose sub-disciplines the data holds under other parents: the next lookup lists them, as the upstream does', async () => {
  const upstream = await startUpstream()
  // The data as recorded before the service added the discipline: its sub-disciplines that have
  // other parents are held without it.
  const discipline = source7.disciplines.find((d) =>
    source7.subDisciplines.some(
      (s) => s.discipline_ids.length > 1 && s.discipline_ids.includes(d.id),
    ),
  )!
  const data = join(tempDir(), 'taxonomy.json')
  writeFileSync(
    data,
    JSON.stringify(withoutRecord(JSON.parse(toFixtureJson(source7)), discipline.id)),
  )
  const { run, url } = await serve(capturing(data, upstream.url))
  const path = `/api/v2/disciplines/${discipline.slug}`
  expect((await get(`${url}${path}`)).status).toBe(200)
  await run.waitFor(/^taxonomy-mock: captured discipline /)
  const direct = await get(`${upstream.url}${path}`, { authorization: `Bearer ${SECRET}` })
  expect((await get(`${url}${path}`)).body).toBe(direct.body)
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
})

it('captures nothing, in one line, when a record it adds would show a parent the data holds under its old slug, and leaves the file as it is', async () => {
  const upstream = await startUpstream()
  // A sub-discipline the data lacks, one of whose parents the data holds under another slug.
  const sub = source7.subDisciplines.find((s) => s.discipline_ids.length > 1)!
  const fixture = withoutRecord(JSON.parse(toFixtureJson(source7)), sub.id)
  const parent = fixture.disciplines.find((d) => d.id === sub.discipline_ids[0])!
  parent.slug = 'renamed-here'
  const data = join(tempDir(), 'taxonomy.json')
  writeFileSync(data, JSON.stringify(fixture))
  const { run, url } = await serve(capturing(data, upstream.url))
  expect((await get(`${url}/api/v2/sub_disciplines/${sub.slug}`)).status).toBe(200)
  await until(
    () => run.stderr.length > 0 || run.stdout.some((line) => line.includes(' captured ')),
    'the capture to end',
  )
  expect(run.stderr).toEqual([
    `taxonomy-mock: cannot capture sub-discipline "${sub.slug}": the data would not answer sub-discipline "${sub.slug}" as the service did (a record the data holds renamed on the service?); nothing captured; not tried again for 60 s`,
  ])
  expect(readFileSync(data, 'utf8')).toBe(JSON.stringify(fixture))
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
})

it("captures nothing, in one line naming --order, when the service orders a record's arrays as the server's --order does not; with that --order it captures", async () => {
  const upstream = await startTestServer({ seed: 7, size: 'small', apiKeys: [SECRET], order: 'id' })
  // A discipline whose sub-disciplines the two orders list otherwise.
  const inOrder = (d: FixtureDiscipline, order: 'name' | 'id') =>
    JSON.stringify(toDisciplineRecord(source7, d, { order }))
  const { slug } = source7.disciplines.find((d) => inOrder(d, 'name') !== inOrder(d, 'id'))!
  const data = join(tempDir(), 'taxonomy.json')
  const first = await serve(capturing(data, upstream.url))
  expect((await get(`${first.url}/api/v2/disciplines/${slug}`)).status).toBe(200)
  await until(
    () =>
      first.run.stderr.length > 0 || first.run.stdout.some((line) => line.includes(' captured ')),
    'the capture to end',
  )
  expect(first.run.stderr).toEqual([
    `taxonomy-mock: cannot capture discipline "${slug}": the service orders discipline "${slug}"'s arrays as --order id does, and this server serves --order name; nothing captured; not tried again for 60 s`,
  ])
  expect(existsSync(data)).toBe(false)
  first.run.child.kill('SIGTERM')
  expect(await first.run.exit).toBe(0)

  const second = await serve(['--order', 'id', ...capturing(data, upstream.url)])
  const path = `/api/v2/disciplines/${slug}`
  expect((await get(`${second.url}${path}`)).status).toBe(200)
  await second.run.waitFor(/^taxonomy-mock: captured discipline /)
  const direct = await get(`${upstream.url}${path}`, { authorization: `Bearer ${SECRET}` })
  expect((await get(`${second.url}${path}`)).body).toBe(direct.body)
  second.run.child.kill('SIGTERM')
  expect(await second.run.exit).toBe(0)
})

interface Linked {
  id: string
  slug: string
  discipline_ids?: string[]
  sub_discipline_ids?: string[]
}

/**
 * A fixture without the discipline or sub-discipline `id`: its children linked to it alone go
 * with it (and theirs), the others lose the link.
 */
function withoutRecord(fixture: Record<string, Linked[]>, id: string) {
  const gone = new Set([id])
  for (const [level, field] of [
    ['disciplines', undefined],
    ['sub_disciplines', 'discipline_ids'],
    ['topics', 'sub_discipline_ids'],
  ] as const) {
    fixture[level] = fixture[level]!.flatMap((record) => {
      const parents = field && record[field]!.filter((parent) => !gone.has(parent))
      if (gone.has(record.id) || parents?.length === 0) return gone.add(record.id) && []
      return [field ? { ...record, [field]: parents } : record]
    })
  }
  return fixture as Record<'disciplines' | 'sub_disciplines' | 'topics', Linked[]>
}

/** The paths the upstream was asked for, oldest first (its default session's journal). */
async function upstreamRequests(base: string): Promise<string[]> {
  const entries = (await (await fetch(`${base}/__admin/sessions/default/requests`)).json()) as {
    path: string
  }[]
  return entries.map((entry) => entry.path)
}

it('refuses --on-miss or --upstream-timeout without --upstream, fail or capture without --data, an unknown mode, a bad timeout, and --upstream without the key, each in one line with exit 2', async () => {
  const cases: [string[], Record<string, string>, string][] = [
    [['--on-miss', 'fail'], ENV, '--on-miss goes with --upstream URL'],
    [['--upstream-timeout', '500'], ENV, '--upstream-timeout goes with --upstream URL'],
    [
      ['--upstream', 'http://127.0.0.1:9', '--upstream-timeout', '0'],
      ENV,
      '--upstream-timeout must be an integer from 1 to 600000; received 0 (number)',
    ],
    [
      ['--upstream', 'http://127.0.0.1:9', '--on-miss', 'fail'],
      ENV,
      '--on-miss fail goes with --data FILE',
    ],
    [
      ['--upstream', 'http://127.0.0.1:9', '--on-miss', 'sometimes'],
      ENV,
      '--on-miss must be fail, passthrough, capture',
    ],
    [
      ['--upstream', 'http://127.0.0.1:9'],
      {},
      "--upstream needs the service's key in TAXONOMY_API_KEY, as verify and record take it; it is not set",
    ],
    [
      ['--upstream', 'http://127.0.0.1:9'],
      { TAXONOMY_API_KEY: '' },
      "--upstream needs the service's key in TAXONOMY_API_KEY, as verify and record take it; it is set but empty",
    ],
    // serve was run: the line names no other command.
    [
      ['--upstream', 'http://127.0.0.1:9'],
      { TAXONOMY_API_KEY: 'short' },
      'taxonomy-mock: the key in env TAXONOMY_API_KEY must have at least 8 characters; it has 5: a shorter key',
    ],
    [
      ['--upstream', 'http://user:pw@127.0.0.1:9'],
      ENV,
      // The CLI's way to pass the key, never the library's option name.
      'taxonomy-mock: --upstream must not carry credentials: pass the key as env TAXONOMY_API_KEY',
    ],
    // A password with a `/`: parsed as host `user`, port 123 and a path, or not parsed at all.
    [
      ['--upstream', 'http://user:123/s3cret@127.0.0.1:9'],
      ENV,
      'taxonomy-mock: --upstream must not carry credentials: pass the key as env TAXONOMY_API_KEY',
    ],
    [
      ['--upstream', 'http://user:hun/s3cret@127.0.0.1:9'],
      ENV,
      'taxonomy-mock: --upstream must be an http or https URL; received "http://[redacted]@127.0.0.1:9"',
    ],
    // Another scheme: the value quoted (its password redacted), as for a URL that does not parse.
    [
      ['--upstream', 'ftp://user:s3cret@127.0.0.1:9'],
      ENV,
      'taxonomy-mock: --upstream must be an http or https URL; received "ftp://[redacted]@127.0.0.1:9" (string)',
    ],
    // Without `scheme://`: all before the last `@` may be the password.
    [
      ['--upstream', '//user:s3cret@127.0.0.1:9'],
      ENV,
      'taxonomy-mock: --upstream must be an http or https URL; received "[redacted]@127.0.0.1:9"',
    ],
    [
      ['--upstream', ':s3cret@127.0.0.1:9'],
      ENV,
      'taxonomy-mock: --upstream must be an http or https URL; received "[redacted]@127.0.0.1:9"',
    ],
    // The key itself, where a URL has no place for it: redacted too.
    [
      ['--upstream', `http://127.0.0.1:9 ${SECRET}`],
      ENV,
      'taxonomy-mock: --upstream must be an http or https URL; received "http://127.0.0.1:9 [API key]"',
    ],
  ]
  for (const [argv, env, message] of cases) {
    const run = spawnCli(['--port', '0', ...argv], env)
    expect(await run.exit, argv.join(' ')).toBe(2)
    expect(run.stderr).toHaveLength(1)
    expect(run.stderr[0]).toContain(message)
  }
})

it('refuses capture into a --data that is no regular file (a FIFO, /dev/stdin), exit 2 in one line: appended to or waited on, never replaced', async () => {
  const fifo = join(tempDir(), 'data.fifo')
  execFileSync('mkfifo', [fifo])
  for (const [data, workers] of [
    [fifo, []],
    ['/dev/stdin', []],
    [fifo, ['--workers', '2']],
  ] as const) {
    const run = spawnCli(['--port', '0', ...workers, ...capturing(data, 'http://127.0.0.1:9')], ENV)
    expect(await run.exit, data).toBe(2)
    expect(run.stderr).toEqual([
      `taxonomy-mock: --on-miss capture rewrites the --data file, and "${data}" is not a regular file (a descriptor, FIFO, device or socket): capture into a file`,
    ])
  }
})

it('with --workers, every process relays and the primary alone writes captures, which every worker then serves', async () => {
  const upstream = await startUpstream()
  const file = join(tempDir(), 'taxonomy.json')
  const { run, url } = await serve(['--workers', '2', ...capturing(file, upstream.url)])
  await run.waitFor(/workers serve the port/)
  const slugs = source7.disciplines.slice(0, 4).map((d) => d.slug)
  for (const slug of slugs)
    expect((await get(`${url}/api/v2/disciplines/${slug}`)).status).toBe(200)
  // Each record is in the file once its capture (or an earlier one's closure) is written.
  const inFile = () => {
    try {
      const captured = loadTaxonomy(readFileSync(file, 'utf8'))
      return slugs.every((slug) => captured.disciplines.some((d) => d.slug === slug))
    } catch {
      return false
    }
  }
  for (let seen = 0; !inFile(); seen++) await run.waitFor(nthCapture(seen))
  const captures = run.stdout.filter((line) => line.startsWith('taxonomy-mock: captured '))
  // One line per capture written, from the primary: a worker writing its own would say it too.
  expect(new Set(captures).size).toBe(captures.length)
  const lastCaptures = captures.length
  for (let i = 0; i < 8; i++) {
    const answer = await get(`${url}/api/v2/disciplines/${slugs[i % slugs.length]}`)
    expect(answer.status).toBe(200)
  }
  const entries = (await journal(url)).slice(-8)
  expect(entries.map((entry) => entry.source)).toEqual(Array(8).fill('fixture'))
  expect(run.stdout.filter((line) => line.startsWith('taxonomy-mock: captured '))).toHaveLength(
    lastCaptures,
  )
})

it('a second stop signal ends a capture under way, writing nothing, and exits 0', async () => {
  const upstream = await startUpstream()
  // Relays the first lookup (the client's answer) from the real service, then answers nothing:
  // the capture's own requests wait until a stop cuts them.
  let asked = 0
  let captureAsked: () => void
  const captureAsking = new Promise<void>((resolve) => (captureAsked = resolve))
  const stalling = createServer(async (request, response) => {
    if (++asked > 1) return captureAsked()
    const answer = await fetch(`${upstream.url}${request.url}`, {
      headers: { authorization: request.headers.authorization! },
    })
    response.writeHead(answer.status, { 'content-type': 'application/json' })
    response.end(await answer.text())
  })
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
  const { port } = stalling.address() as AddressInfo
  const data = join(tempDir(), 'taxonomy.json')
  const { run, url } = await serve(capturing(data, `http://127.0.0.1:${port}`))
  try {
    expect((await get(`${url}/api/v2/disciplines/${SLUG}`)).status).toBe(200)
    await captureAsking
    run.child.kill('SIGTERM')
    // Another signal than the first: the same one again within 0.5 s would be one stop.
    run.child.kill('SIGINT')
    expect(await run.exit).toBe(0)
    expect(run.stderr).toEqual([
      `taxonomy-mock: the capture of discipline "${SLUG}" stopped; nothing written`,
    ])
    expect(existsSync(data)).toBe(false)
  } finally {
    stalling.closeAllConnections()
    stalling.close()
  }
})

it("capture's line names a --data file with controls escaped and counts each level as counted: `1 domain`, not `1 domains`", async () => {
  const upstream = await startUpstream()
  // ESC [2J clears a terminal, U+202E reverses what follows: printed raw, the name acts on it.
  const data = join(tempDir(), 'data\u001b[2J\u202e.json')
  const before = createTaxonomy({ seed: 42, size: 'small' })
  writeFileSync(data, toFixtureJson(before))
  const { run, url } = await serve(capturing(data, upstream.url))
  await get(`${url}/api/v2/disciplines/${SLUG}`)
  const line = await run.waitFor(/^taxonomy-mock: captured discipline /)
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
  const after = loadTaxonomy(readFileSync(data, 'utf8'))
  const added = (
    [
      [after.domains.length - before.domains.length, 'domain'],
      [after.disciplines.length - before.disciplines.length, 'discipline'],
      [after.subDisciplines.length - before.subDisciplines.length, 'sub-discipline'],
      [after.topics.length - before.topics.length, 'topic'],
    ] as const
  )
    .filter(([count]) => count > 0)
    .map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`)
    .join(', ')
  const quoted = JSON.stringify(data).replace('\u202e', '\\u202e')
  expect(line).toMatch(
    new RegExp(
      `^taxonomy-mock: captured discipline "${SLUG}" into ${escapeRegExp(quoted)} \\(${added}\\) in \\d+ requests?$`,
    ),
  )
  expect(added).toMatch(/\b1 [a-z-]+[^s](,|$)/)
})

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
