import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { runCli, spawnCli } from '../helpers/cli.js'
import { until } from '../helpers/clock.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
const slug = createTaxonomy({ size: 'small' }).disciplines[0]!.slug
const auth = { authorization: 'Bearer taxonomy-mock-key' }

async function startCli(args: string[], env: Record<string, string> = {}) {
  const run = spawnCli(['--port', '0', '--size', 'small', ...args], env)
  const line = await run.waitFor(URL_LINE)
  return { run, url: URL_LINE.exec(line)![1]! }
}

it('sets the default session scenario with --scenario, --scenario-slug and --scenario-times', async () => {
  const { url, run } = await startCli([
    '--scenario',
    'unavailable',
    '--scenario-slug',
    slug,
    '--scenario-times',
    '2',
  ])
  await run.waitFor(/scenarios:/)
  expect(run.stdout.find((line) => line.includes('scenarios:'))).toContain(
    `{"kind":"unavailable","slug":"${slug}","times":2} for the default session`,
  )
  const statuses = []
  for (let i = 0; i < 3; i++)
    statuses.push((await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: auth })).status)
  expect(statuses).toEqual([503, 503, 200])
})

it("shows the --scenario's slug in the start lines with C1 and bidirectional controls escaped", async () => {
  const { run } = await startCli([
    '--scenario',
    'unavailable',
    '--scenario-slug',
    'x\u202ey\u009bz',
  ])
  await run.waitFor(/scenarios:/)
  const line = run.stdout.find((line) => line.includes('scenarios:'))
  expect(line).toContain(
    '{"kind":"unavailable","slug":"x\\u202ey\\u009bz"} for the default session',
  )
  expect(line).not.toMatch(/[\u0080-\u009f\u202a-\u202e\ufffd]/)
})

it.each([
  ['delay', '--scenario-times', '1'],
  // The same in JSON that names no delay of its own: --delay is the scenario's, not every answer's.
  ['{"kind":"delay","times":1}'],
])(
  'with --scenario %s, delays the default session by --delay for that many requests, and no other',
  async (...scenario) => {
    const { url } = await startCli(['--scenario', ...scenario, '--delay', '600000', '--quiet'])
    // Another session has no scenario, so no delay: with --delay taken as every answer's, this
    // request waited the ten minutes (a hang, caught by the test's timeout).
    const other = { ...auth, 'x-taxonomy-mock-session': 'other' }
    expect((await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: other })).status).toBe(200)
    // The default session's one delayed request (held), then its scenario is used up.
    void fetch(`${url}/api/v2/disciplines/${slug}`, { headers: auth }).catch(() => {})
    const journal = async () =>
      (await (await fetch(`${url}/__admin/sessions/default/requests`)).json()) as { ms: number }[]
    await until(async () => (await journal()).length > 0, 'the delayed request journaled')
    expect((await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: auth })).status).toBe(200)
    expect((await journal()).map((entry) => entry.ms)).toEqual([600_000, 0])
    const journalOf = `${url}/__admin/sessions/other/requests`
    expect(((await (await fetch(journalOf)).json()) as { ms: number }[])[0]!.ms).toBe(0)
  },
)

it('injects seeded faults with --faults, the same on every run', async () => {
  const statuses = async () => {
    const { url } = await startCli(['--faults', 'rate=0.5,seed=3,kinds=server-error', '--quiet'])
    const seen = []
    for (let i = 0; i < 12; i++)
      seen.push((await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: auth })).status)
    return seen
  }
  const first = await statuses()
  expect(first).toEqual(await statuses())
  expect(new Set(first)).toEqual(new Set([200, 500]))
})

it('serves the admin API to loopback clients, and with --admin-key only to clients that send it', async () => {
  const { url } = await startCli(['--admin-key', 'let-me-in', '--quiet'])
  const put = (headers: Record<string, string>) =>
    fetch(`${url}/__admin/sessions/t/scenario`, {
      method: 'PUT',
      headers,
      body: '{"kind":"server-error"}',
    })
  expect((await put({})).status).toBe(403)
  expect((await put({ 'x-taxonomy-mock-admin-key': 'let-me-in' })).status).toBe(200)
  const response = await fetch(`${url}/api/v2/disciplines/${slug}`, {
    headers: { ...auth, 'x-taxonomy-mock-session': 't' },
  })
  expect(response.status).toBe(500)
})

it('never prints the admin key', async () => {
  const { url, run } = await startCli(['--admin-key', 'super-secret-admin'])
  await fetch(`${url}/__admin/sessions/t/scenario`, {
    method: 'PUT',
    headers: { 'x-taxonomy-mock-admin-key': 'super-secret-admin' },
    body: '"hang"',
  })
  await run.waitFor(/scenarios:/)
  expect([...run.stdout, ...run.stderr].join('\n')).not.toContain('super-secret-admin')
})

it('takes a sequence with --scenario K1,K2,... and a whole scenario as JSON', async () => {
  const { url, run } = await startCli(['--scenario', 'unavailable, usual,server-error'])
  await run.waitFor(/scenarios:/)
  const statuses = []
  for (let i = 0; i < 4; i++)
    statuses.push((await fetch(`${url}/api/v2/disciplines/${slug}`, { headers: auth })).status)
  expect(statuses).toEqual([503, 200, 500, 200])
  const json = await startCli([
    '--scenario',
    '{"sequence":[{"delay":{"median":5,"p99":20}},"not-found"],"repeat":true}',
    '--quiet',
  ])
  const seen = []
  for (let i = 0; i < 4; i++)
    seen.push((await fetch(`${json.url}/api/v2/disciplines/${slug}`, { headers: auth })).status)
  expect(seen).toEqual([200, 404, 200, 404])
})

it('says where --scenario is not JSON as validate does: by line and column, the same on every Node', async () => {
  // The engine's own message differs by Node version (22 adds "(line 1 column 2)") and by runtime,
  // and may quote the text, line breaks included.
  for (const [value, reason] of [
    ['{bad', "expected property name or '}' at line 1, column 2"],
    ['{"kind":\n x}', "unexpected 'x' at line 2, column 2"],
  ]) {
    const { code, stderr } = await runCli(['--port', '0', '--scenario', value!])
    expect(code, value).toBe(2)
    expect(stderr, value).toEqual([`taxonomy-mock: --scenario is not valid JSON: ${reason}`])
  }
})

it('names the flag at fault in a bad --scenario sequence or JSON (exit 2)', async () => {
  for (const [value, message] of [
    ['unavailable,oops', "--scenario sequence[1] must be 'usual', one of"],
    ['{"sequence":', '--scenario is not valid JSON'],
    ['{"sequence":["usual"],"repeat":1}', '--scenario repeat must be true or false'],
  ]) {
    const { code, stderr } = await runCli(['--port', '0', '--scenario', value!])
    expect(code, value).toBe(2)
    expect(stderr.join('\n'), value).toContain(message)
  }
})
