// A slug of `.` or `..` (or an empty one) as a record path's last segment is read by URL parsing as
// the collection's path or its parent (`%2E` too): a request for it would send the key elsewhere.
import { expect, it } from 'vitest'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { SECRET, driftBodies, runInProcess, startTarget } from '../helpers/targets.js'

const ENV = { TAXONOMY_API_KEY: SECRET }
const source7 = createTaxonomy({ seed: 7, size: 'small' })

it.each([
  ['verify', '--discipline', '..', []],
  ['verify', '--sub-discipline', '.', []],
  ['record', '--discipline', '.', ['--out', '/nonexistent-dir/never-written.json']],
  ['record', '--sub-discipline', '..', ['--out', '/nonexistent-dir/never-written.json']],
] as const)(
  '%s refuses %s %s in one usage line, and sends no request',
  async (command, flag, slug, rest) => {
    const target = await startTarget(undefined, { seed: 7, size: 'small' })
    const run = await runInProcess(
      [command, '--target', target.url, flag, slug, ...rest, '--rate', '500'],
      ENV,
    )
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      [],
      [
        `taxonomy-mock: ${flag} must hold slugs a record's path can carry; received ${JSON.stringify(slug)} (string), which a URL reads as a dot segment (the collection's path or its parent)`,
      ],
    ])
    expect(target.requests).toEqual([])
  },
)

it('a crawl never follows a linked slug of . or ..: verify counts it as no slug, and no request leaves the record paths', async () => {
  const discipline = source7.disciplines[0]!
  const target = await startTarget(
    driftBodies('disciplines', (body) => ({
      ...body,
      sub_disciplines: body.sub_disciplines.map((sub: { slug: string }, i: number) =>
        i < 2 ? { ...sub, slug: ['..', '.'][i] } : sub,
      ),
    })),
    { seed: 7, size: 'small' },
  )
  const run = await runInProcess(
    [
      'verify',
      '--target',
      target.url,
      '--discipline',
      discipline.slug,
      '--crawl',
      '20',
      '--rate',
      '500',
    ],
    ENV,
  )
  // Counted as no slug, and not followed.
  expect(run.code).toBe(1)
  expect(run.stdout.join('\n')).toContain(
    `GET /api/v2/disciplines/${discipline.slug} sub_disciplines[0].slug: expected a slug a record's path can carry (not empty, \`.\`, \`..\` or a lone surrogate); received ".." (string)`,
  )
  const keyed = target.requests.filter((request) => request.authorization === `Bearer ${SECRET}`)
  expect(keyed.length).toBeGreaterThan(3)
  // A record's path, or the trailing-slash probe's.
  for (const { path } of keyed)
    expect(path).toMatch(/^\/api\/v2\/(disciplines|sub_disciplines)\/[^/]+\/?$/)
})

it.each(['verify', 'record'] as const)(
  '%s neither follows nor dies on a linked slug holding a lone surrogate, which no URL can carry',
  async (command) => {
    const discipline = source7.disciplines[0]!
    const target = await startTarget(
      driftBodies('disciplines', (body) => ({
        ...body,
        sub_disciplines: body.sub_disciplines.map((sub: { slug: string }, i: number) =>
          i === 0 ? { ...sub, slug: 's\ud800' } : sub,
        ),
      })),
      { seed: 7, size: 'small' },
    )
    const rest =
      command === 'verify' ? ['--crawl', '20'] : ['--out', '/nonexistent-dir/never-written.json']
    const run = await runInProcess(
      [command, '--target', target.url, '--discipline', discipline.slug, ...rest, '--rate', '500'],
      ENV,
    )
    // Before, encodeURIComponent threw: "unexpected failure: URI malformed", no report.
    expect(run.code).toBe(1)
    if (command === 'verify')
      expect(run.stdout.join('\n')).toContain(
        `GET /api/v2/disciplines/${discipline.slug} sub_disciplines[0].slug: expected a slug a record's path can carry (not empty, \`.\`, \`..\` or a lone surrogate); received "s\\ud800" (string)`,
      )
    else
      expect(run.stderr).toEqual([
        expect.stringMatching(
          /^taxonomy-mock: the service's answers break summary-fields, .*; nothing written$/,
        ),
      ])
  },
)

it('verifyService refuses a slug given with a lone surrogate, saying so, before any request', async () => {
  await expect(
    verifyService({ target: 'http://127.0.0.1:9', apiKey: SECRET, disciplines: ['s\ud800'] }),
  ).rejects.toThrow(
    '`disciplines` must hold slugs a record\'s path can carry; received "s\\ud800" (string), whose lone surrogate no URL can carry',
  )
})
