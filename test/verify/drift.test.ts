import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { formatVerifySummary } from '../../src/contract/format.js'
import type { VerifyReport } from '../../src/contract/verify.js'
import { runCli } from '../helpers/cli.js'
import { fixturePath } from '../helpers/fixtures.js'
import { SECRET, driftBodies, runInProcess, startTarget, type Drift } from '../helpers/targets.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
// A discipline with several sub-disciplines, so relations and orders show.
const discipline = taxonomy.disciplines.find(
  (d) => taxonomy.subDisciplinesOf(d).length >= 3 && d.domain_ids.length >= 2,
)!
const ENV = { TAXONOMY_API_KEY: SECRET }

/** `verify` against a target, with a report file; every output and file is checked for the key. */
async function verify(url: string, extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'verify-'))
  const files = { report: join(dir, 'report.json'), junit: join(dir, 'junit.xml') }
  const result = await runInProcess(
    [
      'verify',
      '--target',
      url,
      '--discipline',
      discipline.slug,
      '--crawl',
      '6',
      '--rate',
      '200',
      '--report',
      files.report,
      '--junit',
      files.junit,
      ...extra,
    ],
    ENV,
  )
  const report = JSON.parse(readFileSync(files.report, 'utf8')) as VerifyReport
  const junit = readFileSync(files.junit, 'utf8')
  for (const text of [...result.stdout, ...result.stderr, JSON.stringify(report), junit])
    expect(text).not.toContain(SECRET)
  const rule = (id: string) => report.rules.find((r) => r.id === id)!
  const observation = (id: string) => report.observations.find((o) => o.id === id)!
  return { ...result, report, junit, rule, observation }
}

it('passes every rule against an undrifted target, and says so in the summary, report and JUnit file', async () => {
  const target = await startTarget()
  const { code, stdout, report, junit } = await verify(target.url)
  expect(code).toBe(0)
  expect(report.rules.map((r) => `${r.id}:${r.status}`)).toEqual(
    report.rules.map((r) => `${r.id}:pass`),
  )
  expect(stdout.at(-1)).toBe('No rule failed.')
  expect(stdout[0]).toBe(
    `taxonomy-mock verify ${target.url} (key from env TAXONOMY_API_KEY, ${SECRET.length} characters)`,
  )
  expect(junit).toContain(
    `<testsuites tests="10" failures="0" errors="0" skipped="0" time="${(report.duration / 1000).toFixed(3)}">`,
  )
  expect(report.observations.every((o) => o.verdict === 'same')).toBe(true)
})

it('fails same-identity, naming both places, when a summary gives another name than the record it stands for', async () => {
  const renamed = driftBodies('disciplines', (b) => ({
    ...b,
    sub_disciplines: (b.sub_disciplines as { name: string }[]).map((s, i) =>
      i === 0 ? { ...s, name: `${s.name} (renamed)` } : s,
    ),
  }))
  const { code, rule } = await verify((await startTarget(renamed)).url)
  const first = taxonomy
    .subDisciplinesOf(discipline)
    .slice()
    .sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1))[0]!
  expect(code).toBe(1)
  expect(rule('same-identity').status).toBe('fail')
  expect(rule('same-identity').problems).toContain(
    `GET /api/v2/sub_disciplines/${first.slug}: sub-discipline "${first.id}" has name ${JSON.stringify(first.name)}; GET /api/v2/disciplines/${discipline.slug} sub_disciplines[0] gives ${JSON.stringify(`${first.name} (renamed)`)}`,
  )
})

it("shows a header's value in the summary with its control characters as U+FFFD, and keeps it as sent in the report", async () => {
  const drift: Drift = (_, response) => {
    const headers = new Headers(response.headers)
    headers.set('content-type', 'application/json\u009b31m\u009d52;c;SEFDS0VE\u009c')
    return new Response(response.body, { status: response.status, headers })
  }
  const { stdout, observation } = await verify((await startTarget(drift)).url)
  expect(observation('content-type').service).toBe(
    'application/json\u009b31m\u009d52;c;SEFDS0VE\u009c',
  )
  expect(stdout.join('\n')).toContain('application/json\ufffd31m\ufffd52;c;SEFDS0VE\ufffd')
  expect(stdout.join('\n')).not.toMatch(/[\u0080-\u009f]/)
})

it("shows the service's field names and values in problems JSON-quoted, with every control character escaped: no forged line, no terminal escape", async () => {
  const name =
    '\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007\u001b[31mEXTRA\r\nFORGED LINE'
  const id = '\u001b]52;c;SEFDS0VE\u0007\u001b[2J\u202eID'
  const hostile = driftBodies('disciplines', (b) => {
    const [first, ...rest] = b.sub_disciplines as Record<string, unknown>[]
    const copies = [1, 2].map((n) => ({ ...first, id, name: `X${n}`, slug: `evil-${n}` }))
    return { ...b, [name]: 1, sub_disciplines: [...copies, ...rest] }
  })
  const { stdout, rule, report } = await verify((await startTarget(hostile)).url)
  const at = `GET /api/v2/disciplines/${discipline.slug}`
  expect(rule('record-fields').problems).toContain(
    `${at} ["\\u001b]8;;http://evil.example/\\u0007click\\u001b]8;;\\u0007\\u001b[31mEXTRA\\r\\nFORGED LINE"]: extra field (not in the spec)`,
  )
  expect(rule('same-identity').problems).toContain(
    `${at} sub_disciplines[1]: sub-discipline "\\u001b]52;c;SEFDS0VE\\u0007\\u001b[2J\\u202eID" has name "X2"; ${at} sub_disciplines[0] gives "X1"`,
  )
  expect(stdout.filter((line) => /FORGED/.test(line))).toHaveLength(1)
  const controls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/
  expect(stdout.join('')).not.toMatch(controls)
  // The summary is the library's too: a problem it is given raw is still one line, shown safe.
  const raw = report.rules.map((r) => ({ ...r, problems: ['a\u001b[2J\r\nFORGED\u009b'] }))
  const lines = formatVerifySummary({ ...report, rules: raw })
  expect(lines).toContain('          a\ufffd[2J FORGED\ufffd')
  expect(lines.join('')).not.toMatch(controls)
})

it("cuts the service's values in problems, a 600 KB slug, field name or linked slug as much as a short one", async () => {
  const big = 'a'.repeat(600_000)
  const huge = driftBodies('disciplines', (b) => {
    const [first, ...rest] = b.sub_disciplines as Record<string, unknown>[]
    return {
      ...b,
      slug: `${b.slug}-${big}`,
      [big]: 1,
      sub_disciplines: [{ ...first, slug: big }, ...rest],
    }
  })
  // And a header as long as Node's client takes (16 KB in all).
  const longHeader: Drift = async (request, response) => {
    const answer = await huge(request, response)
    const headers = new Headers(answer.headers)
    headers.set('content-type', `application/json; x=${'b'.repeat(8_000)}`)
    return new Response(answer.body, { status: answer.status, headers })
  }
  const { stdout, report, junit } = await verify((await startTarget(longHeader)).url)
  const at = `GET /api/v2/disciplines/${discipline.slug}`
  const cut = `${big.slice(0, 80)}…`
  expect(report.rules.find((r) => r.id === 'lookup-ok')!.problems).toContain(
    `${at}: the body's slug is "${discipline.slug}-${cut.slice(discipline.slug.length + 1)}"`,
  )
  expect(report.rules.find((r) => r.id === 'record-fields')!.problems).toContain(
    `${at} ["${cut}"]: extra field (not in the spec)`,
  )
  expect(Math.max(...stdout.map((line) => line.length))).toBeLessThan(1_000)
  expect(JSON.stringify(report).length + junit.length).toBeLessThan(100_000)
  expect(stdout.at(-1)).toMatch(/rules failed \(breaking drift\)/)
})

it('names the status option when the service answers a missing key with 403 (no rule fails: the spec leaves it open)', async () => {
  const drift: Drift = (_, response) =>
    response.status === 401
      ? new Response(response.body, { status: 403, headers: response.headers })
      : response
  const { code, stdout, observation, rule } = await verify((await startTarget(drift)).url)
  expect(code).toBe(0)
  expect(rule('unauthorized-error').status).toBe('pass')
  expect(observation('unauthorized-status')).toMatchObject({
    service: '403',
    mock: '401',
    verdict: 'option',
    option: { cli: '--unauthorized-status 403', library: 'statuses: { unauthorized: 403 }' },
  })
  expect(stdout).toContain('To make the mock match: taxonomy-mock --unauthorized-status 403')
})

it('fails record-fields, exit 1, when a record has a field the spec does not list', async () => {
  const { code, rule, junit, stdout } = await verify(
    (await startTarget(driftBodies('disciplines', (b) => ({ ...b, links: {} })))).url,
  )
  expect(code).toBe(1)
  expect(rule('record-fields')).toMatchObject({ status: 'fail' })
  expect(rule('record-fields').problems[0]).toBe(
    `GET /api/v2/disciplines/${discipline.slug} links: extra field (not in the spec)`,
  )
  expect(junit).toContain(
    '<testcase classname="taxonomy-mock.verify" name="record-fields (§2.1, §2.4)">\n      <failure',
  )
  expect(stdout.at(-1)).toBe('1 rule failed (breaking drift): record-fields')
})

it('fails summary-fields, naming each summary and field, for an extra or missing field, a wrong type, or an item not an object', async () => {
  const { code, rule } = await verify(
    (
      await startTarget(
        driftBodies('disciplines', (b) => ({
          ...b,
          sub_disciplines: (b.sub_disciplines as Record<string, unknown>[]).map((s, i) =>
            i === 0
              ? { ...s, description: undefined, extra: 1 }
              : i === 1
                ? { ...s, topics_count: '3' }
                : i === 2
                  ? 7
                  : s,
          ),
        })),
      )
    ).url,
  )
  const at = `GET /api/v2/disciplines/${discipline.slug} sub_disciplines`
  expect(code).toBe(1)
  expect(rule('summary-fields').status).toBe('fail')
  // Every discipline crawled is drifted alike: those of the one given are these.
  expect(rule('summary-fields').problems.filter((p) => p.startsWith(`${at}[`))).toEqual([
    `${at}[0].extra: extra field (not in the spec)`,
    `${at}[0].description: missing`,
    `${at}[1].topics_count: expected a non-negative integer; received "3" (string)`,
    `${at}[2]: expected an object; received 7 (number)`,
  ])
})

it("fails counts, exit 1, when a count is not its array's length", async () => {
  const { code, rule, report } = await verify(
    (
      await startTarget(
        driftBodies('disciplines', (b) => ({
          ...b,
          sub_disciplines_count: b.sub_disciplines_count + 1,
        })),
      )
    ).url,
  )
  expect(code).toBe(1)
  expect(report.failed).toEqual(['counts'])
  const count = taxonomy.subDisciplinesOf(discipline).length
  expect(rule('counts').problems).toContain(
    `GET /api/v2/disciplines/${discipline.slug}: sub_disciplines_count is ${count + 1}, sub_disciplines has ${count} items`,
  )
})

it('fails back-links, exit 1, when a sub-discipline does not list a discipline that lists it', async () => {
  const drift = driftBodies('sub_disciplines', (b) => ({
    ...b,
    disciplines: b.disciplines.filter((d: { id: string }) => d.id !== discipline.id),
  }))
  const { code, report, rule } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['back-links'])
  expect(rule('back-links').problems[0]).toMatch(
    new RegExp(
      `^GET /api/v2/sub_disciplines/[a-z0-9-]+: does not list "${discipline.slug}" in disciplines, though GET /api/v2/disciplines/${discipline.slug} lists it in sub_disciplines$`,
    ),
  )
})

it("fails summary-counts when a summary's topics_count is not the sub-discipline's own", async () => {
  const drift = driftBodies('disciplines', (b) => ({
    ...b,
    sub_disciplines: b.sub_disciplines.map((s: { topics_count: number }) => ({
      ...s,
      topics_count: s.topics_count + 2,
    })),
  }))
  const { code, report } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['summary-counts'])
})

it('leaves a topics_count that is no number to the field rules, not summary-counts', async () => {
  const drift = driftBodies('sub_disciplines', (b) => ({
    ...b,
    topics_count: String(b.topics_count),
  }))
  const { code, report } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['record-fields'])
})

it('leaves summaries without ids to summary-fields, not back-links', async () => {
  const drift = driftBodies('sub_disciplines', (b) => ({
    ...b,
    disciplines: b.disciplines.map(({ id: _, ...rest }: { id: string }) => rest),
  }))
  const { code, report } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['summary-fields'])
})

it("passes auth-before-not-found when an unknown slug without a key gets the service's own key error", async () => {
  const drift: Drift = (_, response) =>
    response.status === 401 ? Response.json({ error: 'Unauthorized' }, { status: 401 }) : response
  const { code, report } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['unauthorized-error'])
})

it('observes another order of the nested arrays and names the option, exit 0', async () => {
  const reverse = (b: Record<string, any>) =>
    Object.fromEntries(
      Object.entries(b).map(([k, v]) => [k, Array.isArray(v) ? v.slice().reverse() : v]),
    )
  const both: Drift = async (request, response) =>
    driftBodies('sub_disciplines', reverse)(
      request,
      await driftBodies('disciplines', reverse)(request, response),
    )
  const { code, observation } = await verify((await startTarget(both)).url)
  expect(code).toBe(0)
  expect(observation('order-sub_disciplines')).toMatchObject({
    service: 'neither by name nor by id',
    verdict: 'option',
    option: { cli: '--order fixture' },
  })
  const byId = await verify(
    (await startTarget(undefined, { seed: 42, size: 'small', order: 'id' })).url,
  )
  expect(byId.observation('order-topics')).toMatchObject({
    service: 'id',
    verdict: 'option',
    option: { cli: '--order id', library: "order: 'id'" },
  })
})

it('fails the error rules when the bodies are not those of §7, and auth-before-not-found when 404 comes first', async () => {
  const drift: Drift = async (request, response) => {
    const unknown = new URL(request.url).pathname.includes('taxonomy-mock-verify-')
    if (unknown) return Response.json({ error: 'Resource not found' }, { status: 404 })
    if (response.status === 401) return Response.json({ message: 'Unauthorized' }, { status: 401 })
    return response
  }
  const { code, report } = await verify((await startTarget(drift)).url)
  expect(code).toBe(1)
  expect(report.failed).toEqual(['unauthorized-error', 'auth-before-not-found'])
})

it('waits out a 429 with Retry-After, retries, and passes; the wait is reported', async () => {
  let limited = 2
  const drift: Drift = (_, response) =>
    limited-- > 0
      ? new Response('{"error":"slow down"}', { status: 429, headers: { 'retry-after': '1' } })
      : response
  const target = await startTarget(drift)
  const { code, observation, report } = await verify(target.url)
  expect(code).toBe(0)
  // The same request, retried; how long each wait is: pacing.test.ts, on a fake clock.
  expect(target.requests[0]!.path).toBe(target.requests[2]!.path)
  expect(observation('rate-limit')).toMatchObject({
    service: '2 × 429 with Retry-After (2 s waited)',
    verdict: 'differs',
    // The kind that answers 429 as the service did; `unavailable` answers 503.
    note: 'test your retry path with the scenario `rate-limited` (a 429 with Retry-After)',
  })
  expect(report.requests.sent).toBe(target.requests.length)
})

it('ends in one line, exit 1, when the service asks for a wait beyond the limit', async () => {
  const target = await startTarget(
    () => new Response('', { status: 503, headers: { 'retry-after': '3600' } }),
  )
  const { code, stdout, stderr } = await runInProcess(
    ['verify', '--target', target.url, '--discipline', discipline.slug],
    ENV,
  )
  expect([code, stdout, stderr]).toEqual([
    1,
    [],
    [
      `taxonomy-mock: ${target.url} answered 503 asking to wait 3600 s (Retry-After), more than the 60 s allowed`,
    ],
  ])
})

it('never sends more than --max-requests, nor faster than --rate', async () => {
  const target = await startTarget()
  const bounded = await runInProcess(
    [
      'verify',
      '--target',
      target.url,
      '--discipline',
      discipline.slug,
      '--crawl',
      '50',
      '--max-requests',
      '4',
      '--rate',
      '100',
    ],
    ENV,
  )
  expect(target.requests).toHaveLength(4)
  expect(bounded.code).toBe(0)
  expect(bounded.stdout.join('\n')).toMatch(/skip  auth-before-not-found +§5, §7: .*request bound/)
  const slow = await startTarget()
  await runInProcess(
    [
      'verify',
      '--target',
      slow.url,
      '--discipline',
      discipline.slug,
      '--max-requests',
      '5',
      '--rate',
      '5',
    ],
    ENV,
  )
  // Five requests at most; how far apart --rate puts them: pacing.test.ts, on a fake clock.
  expect(slow.requests).toHaveLength(5)
})

it('with --rate unlimited, sends each request once the one before is answered and says so', async () => {
  const target = await startTarget()
  const { code, stdout } = await runInProcess(
    [
      'verify',
      '--target',
      target.url,
      '--discipline',
      discipline.slug,
      '--crawl',
      '20',
      '--rate',
      'unlimited',
    ],
    ENV,
  )
  expect(code).toBe(0)
  expect(target.requests.length).toBeGreaterThan(20)
  expect(stdout.join('\n')).toContain('no rate limit')
})

it('sends the key only as Bearer, and only where a probe needs it', async () => {
  const target = await startTarget()
  await verify(target.url)
  const shapes = new Set(
    target.requests.map((r) => (r.authorization ?? '(none)').replace(SECRET, '<key>')),
  )
  expect([...shapes].sort()).toEqual([
    '(none)',
    'Bearer <key>',
    'Bearer taxonomy-mock-verify-wrong-key',
    'bearer <key>',
  ])
})

it('says in one line, exit 1, that a target cannot be reached (the real bin)', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  const { code, stdout, stderr } = await runCli(
    ['verify', '--target', `http://127.0.0.1:${port}`, '--discipline', 'history'],
    ENV,
  )
  expect(code).toBe(1)
  expect(stdout).toEqual([])
  expect(stderr).toEqual([`taxonomy-mock: cannot reach http://127.0.0.1:${port}: ECONNREFUSED`])
})

it.each([
  [
    ['verify', '--target', 'http://127.0.0.1:9', '--discipline', 'x'],
    {},
    'taxonomy-mock: no API key: TAXONOMY_API_KEY is not set (set it, name another variable with --api-key-env NAME, or pass --api-key)',
  ],
  [
    ['verify', '--target', 'http://127.0.0.1:9', '--discipline', 'x'],
    { TAXONOMY_API_KEY: '' },
    'taxonomy-mock: no API key: TAXONOMY_API_KEY is set but empty (put the key in it, name another variable with --api-key-env NAME, or pass --api-key)',
  ],
  [
    ['verify', '--target', 'http://127.0.0.1:9', '--discipline', 'x', '--api-key='],
    ENV,
    'taxonomy-mock: no API key: --api-key is empty',
  ],
  [
    [
      'verify',
      '--target',
      'http://127.0.0.1:9',
      '--discipline',
      'x',
      '--api-key-env',
      'STAGING_KEY',
    ],
    { STAGING_KEY: `${SECRET} x` },
    `taxonomy-mock: the key in env STAGING_KEY must be 1-256 visible ASCII characters with no spaces; received a string of ${SECRET.length + 2} characters`,
  ],
  [
    ['verify', '--target', 'http://127.0.0.1:9'],
    ENV,
    'taxonomy-mock: --discipline or --sub-discipline must name at least one slug to start from: the API has no list endpoint',
  ],
  [
    ['verify', '--discipline', 'x'],
    ENV,
    "taxonomy-mock: verify needs --target URL, the service's base URL (e.g. https://staging.example.com)",
  ],
  [
    ['verify', '--target', 'ftp://x', '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must be an http or https URL; received "ftp://x" (string)',
  ],
  [
    ['verify', '--target', `http://user:${SECRET}@x`, '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must not carry credentials: pass the key as --api-key-env NAME',
  ],
  [
    ['verify', '--target', `http://user:123/${SECRET}@x`, '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must not carry credentials: pass the key as --api-key-env NAME',
  ],
  [
    ['verify', '--target', `http://user:hun/${SECRET}@x`, '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must be an http or https URL; received "http://[redacted]@x" (string)',
  ],
  // Without `scheme://`: all before the last `@` may be the password.
  [
    ['verify', '--target', `//user:${SECRET}@x`, '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must be an http or https URL; received "[redacted]@x" (string)',
  ],
  [
    ['verify', '--target', `:${SECRET}@x`, '--discipline', 'x'],
    ENV,
    'taxonomy-mock: --target must be an http or https URL; received "[redacted]@x" (string)',
  ],
  [
    ['verify', '--target', 'http://x', '--discipline', 'x', '--out', 'f'],
    ENV,
    'taxonomy-mock: --out is a record option (see --help)',
  ],
  [
    ['record', '--target', 'http://x', '--discipline', 'x', '--out', 'f', '--crawl', '3'],
    ENV,
    'taxonomy-mock: --crawl is a verify option (see --help)',
  ],
  [
    ['verify', '--target', 'http://x', '--discipline', 'x', '--rate', '0'],
    ENV,
    'taxonomy-mock: --rate must be a number of requests per second from 0.01 to 1000, or Infinity for no limit; received 0 (number)',
  ],
  [
    ['serve', '--order', 'random'],
    {},
    "taxonomy-mock: --order must be 'name', 'id' or 'fixture'; received \"random\" (string)",
  ],
  [
    ['serve', '--unauthorized-status', '200'],
    {},
    'taxonomy-mock: --unauthorized-status must be a 4xx status other than 405, 407, 408, 413, 429 and 431; received 200 (number)',
  ],
])('exits 2 with one line for %j', async (argv, env, line) => {
  const { code, stdout, stderr } = await runInProcess(
    argv as string[],
    env as Record<string, string>,
  )
  expect([code, stdout, stderr]).toEqual([2, [], [line]])
})

it('counts one record of a level, and one lookup, in the singular in its summary and JUnit file', async () => {
  const minimal = loadTaxonomy(readFileSync(fixturePath('minimal.json'), 'utf8'))
  const target = await startTarget(undefined, { taxonomy: minimal })
  const dir = mkdtempSync(join(tmpdir(), 'verify-'))
  const junit = join(dir, 'junit.xml')
  const { code, stdout } = await runInProcess(
    [
      'verify',
      '--target',
      target.url,
      '--discipline',
      'area-studies',
      '--rate',
      '200',
      '--junit',
      junit,
    ],
    ENV,
  )
  expect(code).toBe(0)
  expect(stdout[1]).toMatch(
    /^\d+ requests \(bound 200, at most 200\/s\); 1 discipline and 0 sub-disciplines looked up$/,
  )
  expect(readFileSync(junit, 'utf8')).toMatch(/ over 1 lookup"\/>/)
})
