import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { recordService } from '../../src/contract/record.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { spawnCli } from '../helpers/cli.js'
import { fixturePath } from '../helpers/fixtures.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET, driftBodies, runInProcess, startTarget, type Drift } from '../helpers/targets.js'

const ENV = { TAXONOMY_API_KEY: SECRET }

/**
 * `record` of one discipline of `target` into a fresh temp file called `name`, with the bounds every
 * refusal test gives it and `flags` besides; resolves to the run and the file's path.
 */
async function recordDiscipline(
  target: { url: string },
  discipline: string,
  name: string,
  ...flags: string[]
) {
  const out = join(mkdtempSync(join(tmpdir(), 'record-')), name)
  const bounds = ['--rate', '500', '--max-requests', '1000', '--out', out]
  const run = await runInProcess(
    ['record', '--target', target.url, '--discipline', discipline, ...flags, ...bounds],
    ENV,
  )
  return { ...run, out }
}

const source7 = createTaxonomy({ seed: 7, size: 'small' })

async function get(base: string, path: string, key = true) {
  const response = await fetch(
    `${base}${path}`,
    key ? { headers: { authorization: `Bearer ${SECRET}` } } : {},
  )
  return { status: response.status, body: await response.text() }
}

it('records a taxonomy-mock server with another seed and options; serving the file with --data gives every recorded body byte for byte; re-recording gives the same bytes', async () => {
  const source = await startTestServer({
    seed: 7,
    size: 'small',
    order: 'id',
    statuses: { unauthorized: 403 },
    apiKeys: [SECRET],
  })
  const dir = mkdtempSync(join(tmpdir(), 'record-'))
  const out = join(dir, 'made-by-record', 'recording.json')
  const argv = [
    'record',
    '--target',
    source.url,
    '--discipline',
    source7.disciplines[0]!.slug,
    '--all',
    '--rate',
    '500',
    '--max-requests',
    '1000',
    '--out',
  ]
  const first = await runInProcess([...argv, out], ENV)
  expect(first.stderr).toEqual([])
  expect(first.code).toBe(0)
  expect(first.stdout[1]).toBe(
    `Serve it as the service answered: taxonomy-mock --data ${out} --order id`,
  )
  const text = readFileSync(out, 'utf8')
  for (const output of [text, ...first.stdout]) expect(output).not.toContain(SECRET)
  expect(readdirSync(join(dir, 'made-by-record'))).toEqual(['recording.json'])

  const recorded = loadTaxonomy(text)
  expect(recorded.toFixture().format).toBe('taxonomy-mock/v1.1')
  expect(recorded.domains.every((domain) => domain.description === null)).toBe(true)
  expect(recorded.disciplines.length).toBeGreaterThan(1)

  const served = spawnCli([
    '--data',
    out,
    '--order',
    'id',
    '--unauthorized-status',
    '403',
    '--port',
    '0',
    '--api-key',
    SECRET,
    '--quiet',
  ])
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(
    await served.waitFor(/http:\/\/127\.0\.0\.1:\d+/),
  )![0]
  const paths = [
    ...recorded.disciplines.map((d) => `/api/v2/disciplines/${d.slug}`),
    ...recorded.subDisciplines.map((s) => `/api/v2/sub_disciplines/${s.slug}`),
  ]
  for (const path of paths) expect(await get(url, path), path).toEqual(await get(source.url, path))
  expect((await get(url, paths[0]!)).status).toBe(200)
  expect(await get(url, paths[0]!, false)).toEqual(await get(source.url, paths[0]!, false))

  const again = join(dir, 'again.json')
  expect((await runInProcess([...argv, again], ENV)).code).toBe(0)
  expect(readFileSync(again, 'utf8')).toBe(text)
})

it("keeps an order no sort gives (the dataset's own) so that --order fixture reproduces every body", async () => {
  const handle = createFetchHandler({ seed: 3, size: 'small', order: 'fixture', apiKeys: [SECRET] })
  const result = await recordService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [createTaxonomy({ seed: 3, size: 'small' }).disciplines[1]!.slug],
    rate: 1_000,
    maxRequests: 1_000,
    fetch: handle,
  })
  expect(result.order).toBe('fixture')
  expect(Object.values(result.observedOrders)).toContain('other')
  const replay = createFetchHandler({
    taxonomy: loadTaxonomy(result.json),
    order: 'fixture',
    apiKeys: [SECRET],
  })
  for (const record of [
    ...result.taxonomy.disciplines.map((d) => `disciplines/${d.slug}`),
    ...result.taxonomy.subDisciplines.map((s) => `sub_disciplines/${s.slug}`),
  ]) {
    const request = () =>
      new Request(`http://taxonomy.test/api/v2/${record}`, {
        headers: { authorization: `Bearer ${SECRET}` },
      })
    expect(await (await replay(request())).text()).toBe(await (await handle(request())).text())
  }
})

// A million topics of one parent each were a million arrays of one id: 56 MB of a recording's peak.
it('gives the topics a sub-discipline alone lists one list of its id between them, and a topic of several parents its own', async () => {
  const handle = createFetchHandler({ seed: 7, size: 'small', apiKeys: [SECRET] })
  const { taxonomy } = await recordService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: [source7.disciplines[0]!.slug],
    all: true,
    rate: 1_000,
    maxRequests: 1_000,
    fetch: handle,
  })
  const listsOf = new Map<string, Set<readonly string[]>>()
  const shared = taxonomy.topics.filter((topic) => topic.sub_discipline_ids.length > 1)
  for (const topic of taxonomy.topics) {
    if (topic.sub_discipline_ids.length !== 1) continue
    const [parent] = topic.sub_discipline_ids
    listsOf.set(parent!, (listsOf.get(parent!) ?? new Set()).add(topic.sub_discipline_ids))
  }
  expect(listsOf.size).toBeGreaterThan(1)
  for (const lists of listsOf.values()) expect(lists.size).toBe(1)
  // The lists of several ids are each the topic's own, so no push to one reaches another.
  expect(shared.length).toBeGreaterThan(0)
  expect(new Set(shared.map((topic) => topic.sub_discipline_ids)).size).toBe(shared.length)
  expect(taxonomy.topics.every((topic) => Object.isFrozen(topic.sub_discipline_ids))).toBe(true)
})

it('fails in one line naming what is missing and the flag to raise, and writes nothing, when the bound comes first', async () => {
  const target = await startTarget(undefined, { seed: 7, size: 'small' })
  const out = join(mkdtempSync(join(tmpdir(), 'record-')), 'partial.json')
  const { code, stdout, stderr } = await runInProcess(
    [
      'record',
      '--target',
      target.url,
      '--discipline',
      source7.disciplines[0]!.slug,
      '--max-requests',
      '3',
      '--rate',
      '500',
      '--out',
      out,
    ],
    ENV,
  )
  expect([code, stdout]).toEqual([1, []])
  expect(stderr).toHaveLength(1)
  expect(stderr[0]).toMatch(
    /^taxonomy-mock: not closed after 3 requests: at least \d+ more records needed \(e\.g\. (sub-)?discipline "[a-z0-9-]+"\); raise --max-requests \(now 3\); nothing written$/,
  )
  expect(target.requests).toHaveLength(3)
  expect(existsSync(out)).toBe(false)
})

it('refuses to record a service whose answers break a rule, and writes nothing', async () => {
  const target = await startTarget(
    driftBodies('disciplines', (b) => ({ ...b, sub_disciplines_count: 0 })),
    { seed: 7, size: 'small' },
  )
  const { code, stderr, out } = await recordDiscipline(
    target,
    source7.disciplines[0]!.slug,
    'broken.json',
  )
  expect([code, stderr]).toEqual([
    1,
    [
      "taxonomy-mock: the service's answers break counts (run taxonomy-mock verify for details); nothing written",
    ],
  ])
  expect(existsSync(out)).toBe(false)
})

// The fixture made from a recording does not look its topics' ids and slugs up again: the rules
// must refuse two topics that share either, wherever they are listed, before any file is made.
it.each([
  ['a slug', 'slug'],
  ['an id', 'id'],
] as const)(
  'refuses to record two topics that share %s (same-identity), and writes nothing',
  async (_, field) => {
    const discipline = source7.disciplines[0]!
    const [first, second] = source7.topicsOf(source7.subDisciplinesOf(discipline)[0]!)
    const target = await startTarget(
      driftBodies('sub_disciplines', (b) => ({
        ...b,
        topics: b.topics.map((topic: Record<string, string>) =>
          topic.id === second!.id ? { ...topic, [field]: first![field] } : topic,
        ),
      })),
      { seed: 7, size: 'small' },
    )
    const { code, stderr, out } = await recordDiscipline(
      target,
      discipline.slug,
      'shared.json',
      '--all',
    )
    expect([code, stderr]).toEqual([
      1,
      [
        "taxonomy-mock: the service's answers break same-identity (run taxonomy-mock verify for details); nothing written",
      ],
    ])
    expect(existsSync(out)).toBe(false)
  },
)

it('refuses to record a service whose arrays are in orders no single dataset order gives, and writes nothing', async () => {
  // Psychiatry and public health share three sub-disciplines: listed in opposite orders, no one
  // order of the file gives both.
  const target = await startTarget(
    driftBodies('disciplines', (b) =>
      b.slug === 'public-health' ? { ...b, sub_disciplines: b.sub_disciplines.toReversed() } : b,
    ),
    { seed: 7, size: 'small' },
  )
  const { code, stderr, out } = await recordDiscipline(target, 'psychiatry', 'cycle.json')
  expect(code).toBe(1)
  expect(stderr).toEqual([
    expect.stringMatching(
      /^taxonomy-mock: the recording would not answer GET \/api\/v2\/disciplines\/(psychiatry|public-health) as the service did: its arrays are in orders no single dataset order gives; nothing written$/,
    ),
  ])
  expect(existsSync(out)).toBe(false)
})

it('refuses to record a name that holds the key once its JSON escapes are read, and writes nothing', async () => {
  // `\u0025` is `%`: the body's text shows `\u00257` and so on, the name `%76%65...`, the key
  // percent-encoded, which only the parsed values show.
  const percentEncoded = [...SECRET].map((char) => `%${char.charCodeAt(0).toString(16)}`).join('')
  const escaped = percentEncoded.replaceAll('%', '\\u0025')
  const victim = source7.disciplines[0]!.name
  const echo: Drift = async (request, response) => {
    if (response.status !== 200 || !new URL(request.url).pathname.startsWith('/api/v2/'))
      return response
    // The same name everywhere the record is listed, so no rule tells it from the service's own.
    const text = (await response.text()).replaceAll(
      `"name":${JSON.stringify(victim)}`,
      `"name":"${victim} ${escaped}"`,
    )
    const headers = new Headers(response.headers)
    headers.set('content-length', String(Buffer.byteLength(text)))
    return new Response(text, { status: 200, headers })
  }
  const target = await startTarget(echo, { seed: 7, size: 'small' })
  const { code, stderr, out } = await recordDiscipline(
    target,
    source7.disciplines[0]!.slug,
    'leak.json',
  )
  // Found in the first answer's text, which shows it JSON-escaped and percent-encoded in turn.
  expect([code, stderr]).toEqual([
    1,
    [
      `taxonomy-mock: GET /api/v2/disciplines/${source7.disciplines[0]!.slug} answered with the API key in its body, which a recording must not hold; nothing written`,
    ],
  ])
  expect(existsSync(out)).toBe(false)
})

it('refuses to record records that make no valid fixture, in one line naming the first path, and writes nothing', async () => {
  // Every topic's slug in capitals: a string wherever it is listed, so every rule passes, but no
  // slug a fixture accepts, so each topic fails its check as it is made.
  const target = await startTarget(
    driftBodies('sub_disciplines', (b) => ({
      ...b,
      topics: b.topics.map((topic: { slug: string }) => ({
        ...topic,
        slug: topic.slug.toUpperCase(),
      })),
    })),
    { seed: 7, size: 'small' },
  )
  const { code, stderr, out } = await recordDiscipline(
    target,
    source7.disciplines[0]!.slug,
    'invalid.json',
    '--all',
  )
  expect(code).toBe(1)
  expect(stderr).toEqual([
    expect.stringMatching(
      /^taxonomy-mock: the service's records do not make a valid fixture: topics\[0\]\.slug: "[A-Z0-9_-]+" is not a slug \(lowercase letters and digits, words joined by - or _, at most \d+ characters\) \(and \d+ more problems\); nothing written$/,
    ),
  ])
  expect(existsSync(out)).toBe(false)
})

it('counts one record of a level in the singular in its summary', async () => {
  const taxonomy = loadTaxonomy(readFileSync(fixturePath('minimal.json'), 'utf8'))
  const source = await startTestServer({ taxonomy, apiKeys: [SECRET] })
  const { code, stdout, out } = await recordDiscipline(source, 'area-studies', 'one.json')
  expect(code).toBe(0)
  expect(stdout[0]).toMatch(
    new RegExp(
      `^taxonomy-mock: recorded 1 discipline, 1 sub-discipline, 1 domain and 1 topic from ${source.url} in \\d+ requests to ${out}$`,
    ),
  )
})

it('says a recording past the --data limit cannot be served so, not a command that refuses it', async () => {
  // A recording of a service as large as `--size large` is about 400 MB: `--data` refuses it.
  const { serveAdvice } = await import('../../src/cli/record.js')
  const limit = 100 * 1024 * 1024
  expect(serveAdvice('big.json', limit + 1024 * 1024, 'name')).toBe(
    'It is 101 MB, more than the 100 MB --data reads: record fewer disciplines to serve one, or load this one in code with loadTaxonomy()',
  )
  expect(serveAdvice('big.json', 397 * 1024 * 1024, 'id')).toMatch(/^It is 397 MB, more than/)
  expect(serveAdvice('ok.json', limit, 'id')).toBe(
    'Serve it as the service answered: taxonomy-mock --data ok.json --order id',
  )
  // A name a terminal would act on is quoted, as every other line quotes one.
  expect(serveAdvice('a\nb.json', 10, 'name')).toBe(
    'Serve it as the service answered: taxonomy-mock --data "a\\nb.json"',
  )
})

it('quotes a file name the shell would split in the command it advises, so the line pastes as it is', async () => {
  const { serveAdvice } = await import('../../src/cli/record.js')
  expect(serveAdvice('rec dir/ü.json', 10, 'name')).toBe(
    "Serve it as the service answered: taxonomy-mock --data 'rec dir/ü.json'",
  )
  expect(serveAdvice("it's $HOME.json", 10, 'id')).toBe(
    "Serve it as the service answered: taxonomy-mock --data 'it'\\''s $HOME.json' --order id",
  )
})
