import { setupServer } from 'msw/node'
import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import type { JournalEntry } from '../../src/http/journal.js'
import { toHar } from '../../src/http/request-journal.js'
import { createMock } from '../../src/msw/index.js'
import { taxonomy } from '../cases/cases.js'
import { spawnCli } from '../helpers/cli.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { onUnhandled } from '../helpers/unhandled.js'

// The accepted key, and tokens that are no key of the mock's but sit under a secret name.
const KEY = 'query-accepted-key-0123456789'
const TOKEN = 'query-access-token-abcdefghij'
const OTHER = 'query-other-secret-klmnopqrst'
const ADMIN = 'query-admin-key-uvwxyz012345'
const SECRETS = [KEY, TOKEN, OTHER, ADMIN]
const D = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`
const ORIGIN = 'http://query-keys.test'

/** Requests that carry a secret in the query, and the target each is journaled and logged as. */
const REQUESTS: readonly { path: string; keyed: boolean; kept: string; prefer?: string }[] = [
  { path: `${D}?api_key=${KEY}`, keyed: true, kept: `${D}?api_key=[redacted]` },
  {
    path: `${D}?access_token=${TOKEN}&page=2`,
    keyed: true,
    kept: `${D}?access_token=[redacted]&page=2`,
  },
  { path: `${D}?key=${OTHER}`, keyed: false, kept: `${D}?key=[redacted]` },
  { path: `${D}?q=${KEY}`, keyed: true, kept: `${D}?q=[redacted]` },
  {
    path: `${D}?X-Api-Key=${encodeURIComponent(KEY)}`,
    keyed: true,
    kept: `${D}?X-Api-Key=[redacted]`,
  },
  { path: `${D}?${KEY}`, keyed: true, kept: `${D}?[redacted]` },
  // A key among other text, and names of the table that were missing from it.
  { path: `${D}?y=${KEY}%`, keyed: true, kept: `${D}?y=[redacted]` },
  { path: `${D}?b=${KEY}+&c=+${ADMIN}`, keyed: true, kept: `${D}?b=[redacted]&c=[redacted]` },
  { path: `${D}?b=${KEY}%E2%82`, keyed: true, kept: `${D}?b=[redacted]` },
  { path: `${D}?x=Bearer%20${KEY}`, keyed: true, kept: `${D}?x=[redacted]` },
  { path: `${D}?x=${KEY}x`, keyed: true, kept: `${D}?x=[redacted]` },
  {
    path: `${D}?private_token=${OTHER}&app_key=${TOKEN}&jwt=${OTHER}`,
    keyed: false,
    kept: `${D}?private_token=[redacted]&app_key=[redacted]&jwt=[redacted]`,
  },
  // A key put in the path by mistake: a 404 (or a 401 without the key), whose path keeps none.
  { path: `/api/v2/disciplines/${KEY}`, keyed: true, kept: '/api/v2/disciplines/[redacted]' },
  {
    path: `/api/v2/sub_disciplines/x${encodeURIComponent(KEY)}?q=1`,
    keyed: false,
    kept: '/api/v2/sub_disciplines/[redacted]?q=1',
  },
  { path: `/api/v2/disciplines/${ADMIN}/x`, keyed: true, kept: '/api/v2/disciplines/[redacted]/x' },
  // A key in a Prefer value by mistake: the 400 does not quote it back (the journal keeps bodies).
  { path: `${D}?p=1`, keyed: true, kept: `${D}?p=1`, prefer: `scenario=${KEY}` },
  { path: `${D}?p=2`, keyed: true, kept: `${D}?p=2`, prefer: `delay=x${ADMIN}` },
]

function headersOf(keyed: boolean, prefer?: string): Record<string, string> {
  return {
    ...(keyed ? { authorization: `Bearer ${KEY}` } : {}),
    ...(prefer === undefined ? {} : { prefer }),
  }
}

/** Each secret's first stretch that `text` shows, in any encoding; `[]` when none. */
function leaksIn(text: string): string[] {
  return SECRETS.flatMap((secret) => findKeyLeak(text, secret) ?? [])
}

it('keeps no key sent in the query in the server journal, its HAR file or its request log', async () => {
  const run = spawnCli(['--port', '0', '--seed', '42', '--size', 'small'], {
    TAXONOMY_MOCK_API_KEYS: KEY,
    TAXONOMY_MOCK_ADMIN_KEY: ADMIN,
  })
  const url = /listening on (http:\/\/[^ ]+)/.exec(await run.waitFor(/listening on/))![1]!
  for (const { path, keyed, prefer } of REQUESTS)
    await (await fetch(`${url}${path}`, { headers: headersOf(keyed, prefer) })).text()
  const admin = { 'x-taxonomy-mock-admin-key': ADMIN }
  const journal = await (
    await fetch(`${url}/__admin/sessions/default/requests?admin_key=${ADMIN}`, { headers: admin })
  ).text()
  const har = await (
    await fetch(`${url}/__admin/sessions/default/requests.har?token=${TOKEN}`, { headers: admin })
  ).text()
  // The log line of the last request: every line before it is written by then.
  await run.waitFor(/requests\.har/)
  const log = run.stdout.filter((line) => /^(GET|HEAD) /.test(line))

  expect((JSON.parse(journal) as JournalEntry[]).map((entry) => entry.path)).toEqual(
    REQUESTS.map(({ kept }) => kept),
  )
  expect(log.map((line) => line.split(' ')[1])).toEqual([
    ...REQUESTS.map(({ kept }) => kept),
    '/__admin/sessions/default/requests?admin_key=[redacted]',
    '/__admin/sessions/default/requests.har?token=[redacted]',
  ])
  const entries = (JSON.parse(har) as { log: { entries: { request: { url: string } }[] } }).log
    .entries
  expect(entries.map((entry) => entry.request.url)).toEqual(
    REQUESTS.map(({ kept }) => `${url}${kept}`),
  )
  for (const output of [journal, har, run.stdout.join('\n'), run.stderr.join('\n')])
    expect(leaksIn(output)).toEqual([])
})

it('keeps no key sent in the query in the journal or HAR of a fetch handler or an MSW kit', async () => {
  const options = { taxonomy, apiKeys: [KEY], adminKey: ADMIN }
  const handle = createFetchHandler(options)
  for (const { path, keyed, prefer } of REQUESTS)
    await handle(new Request(`${ORIGIN}${path}`, { headers: headersOf(keyed, prefer) }))
  const mock = createMock({ ...options, baseUrl: ORIGIN })
  // Listening only here: the other test's requests go to the server over loopback.
  const msw = setupServer(...mock.handlers)
  msw.listen(onUnhandled('error'))
  try {
    for (const { path, keyed, prefer } of REQUESTS)
      await (await fetch(`${ORIGIN}${path}`, { headers: headersOf(keyed, prefer) })).text()
  } finally {
    msw.close()
  }

  for (const journal of [handle.journal, mock.journal]) {
    expect(journal.entries().map((entry) => entry.path)).toEqual(
      REQUESTS.map(({ kept }) => `${ORIGIN}${kept}`),
    )
    const har = toHar(journal)
    expect(har.log.entries[1]!.request.queryString).toEqual([
      { name: 'access_token', value: '[redacted]' },
      { name: 'page', value: '2' },
    ])
    for (const output of [JSON.stringify(journal.entries()), JSON.stringify(har)])
      expect(leaksIn(output)).toEqual([])
  }
})
