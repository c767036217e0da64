import { createServer, type Server } from 'node:http'
import { afterEach, expect, it } from 'vitest'
import { recordService } from '../../src/contract/record.js'
import { verifyService } from '../../src/contract/verify.js'
import { runCli } from '../helpers/cli.js'
import { startHostileTarget, type HostileTarget } from '../helpers/hostile-target.js'
import { SECRET, runInProcess, startTarget } from '../helpers/targets.js'

const ENV = { TAXONOMY_API_KEY: SECRET }
/** A run's answers may take their time: 12 MB bodies on a busy machine are slow, and none is late here. */
const LONGEST_TIMEOUT = ['--timeout', '600000']
const opened: (HostileTarget | Server)[] = []

afterEach(async () => {
  for (const item of opened.splice(0)) {
    if ('closeAllConnections' in item) {
      item.closeAllConnections()
      await new Promise((resolve) => item.close(resolve))
    } else await item.close()
  }
})

/** A server that answers every request with `answer`, on 127.0.0.1. */
async function startRawTarget(
  answer: (res: import('node:http').ServerResponse) => void,
): Promise<string> {
  const server = createServer((_, res) => answer(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  opened.push(server)
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

it.each(['verify', 'record'])(
  '%s ends in one line, exit 1, within a 160 MB heap, against a service whose every body is under the read cap but whose data has no end',
  async (command) => {
    // 12 MB bodies, each listing 45,000 children never seen before: before the budget, the run kept every text and body.
    const target = await startHostileTarget({ key: SECRET, bodyBytes: 12_000_000, echo: false })
    opened.push(target)
    const extra =
      command === 'verify' ? ['--crawl', '190'] : ['--out', '/nonexistent-dir/never-written.json']
    const { code, stdout, stderr } = await runCli(
      [
        command,
        '--target',
        target.url,
        '--discipline',
        'hostile',
        '--rate',
        '1000',
        ...LONGEST_TIMEOUT,
        ...extra,
      ],
      {
        ...ENV,
        NODE_OPTIONS: '--max-old-space-size=160',
      },
    )
    expect([code, stdout, stderr.length]).toEqual([1, [], 1])
    expect(stderr[0]).toMatch(
      /^taxonomy-mock: GET \/api\/v2\/\S+ would take the answers read past 64 MB, the budget of one run \(\d+ answers before it\): the service's data is too large for taxonomy-mock to check or record/,
    )
    expect(target.requests.length).toBeLessThan(20)
  },
)

it('says a body is over the read cap, not that the service cannot be reached, when it declares 10 GB', async () => {
  const url = await startRawTarget((res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(10 * 2 ** 30),
    })
    res.write('{"id":')
  })
  const { code, stderr } = await runInProcess(
    ['verify', '--target', url, '--discipline', 'history'],
    ENV,
  )
  expect([code, stderr]).toEqual([
    1,
    [
      `taxonomy-mock: GET /api/v2/disciplines/history answered a body of ${10 * 2 ** 30} bytes (Content-Length), over the 16 MB one answer may bring: the service's data is too large for taxonomy-mock to check or record`,
    ],
  ])
})

it('says a body broke off, not that the service cannot be reached, when the connection drops mid-body', async () => {
  const url = await startRawTarget((res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' })
    res.write('x'.repeat(1000), () => res.destroy())
  })
  const { code, stderr } = await runInProcess(
    ['record', '--target', url, '--discipline', 'history', '--out', '/nonexistent-dir/x.json'],
    ENV,
  )
  expect(code).toBe(1)
  expect(stderr).toHaveLength(1)
  expect(stderr[0]).toMatch(
    /^taxonomy-mock: GET \/api\/v2\/disciplines\/history answered 200, but its body broke off after 1000 bytes: \S/,
  )
})

it('ends the run rather than wait past maxTotalWait in all, though each Retry-After is within maxRetryAfter', async () => {
  const target = await startTarget(
    () => new Response('', { status: 503, headers: { 'retry-after': '1' } }),
  )
  // How long it waited in all: pacing.test.ts, on a fake clock.
  const run = verifyService({
    target: target.url,
    apiKey: SECRET,
    disciplines: ['history'],
    rate: 100,
    maxTotalWait: 2_000,
  })
  await expect(run).rejects.toThrow(
    `${target.url} answered 503 asking to wait 1 s (Retry-After) after 2 waits of 2 s in all; a run waits at most 2 s in all: try again later`,
  )
  expect(target.requests).toHaveLength(3)
})

it('keeps at most 100,000 links waiting: record says "at least 100000 more" of a sub-discipline listing 150,000 parents', async () => {
  const target = await startHostileTarget({ key: SECRET, bodyBytes: 150_000 * 90, echo: false })
  opened.push(target)
  const run = recordService({
    target: target.url,
    apiKey: SECRET,
    subDisciplines: ['hostile'],
    rate: 1_000,
    maxRequests: 1,
    timeout: 600_000,
  })
  await expect(run).rejects.toThrow(
    /^not closed after 1 request: at least 100000 more records needed \(e\.g\. discipline "child-0000001-1"\)/,
  )
})

it('reads past 64 MB only when --max-read allows it, and names the budget it was given', async () => {
  const target = await startHostileTarget({ key: SECRET, bodyBytes: 12_000_000, echo: false })
  opened.push(target)
  const run = (maxRead: string) =>
    runInProcess(
      [
        'verify',
        '--target',
        target.url,
        '--discipline',
        'hostile',
        '--rate',
        'unlimited',
        '--crawl',
        '190',
        '--max-read',
        maxRead,
        ...LONGEST_TIMEOUT,
      ],
      ENV,
    )
  const answersBefore = (line: string | undefined, mb: number) =>
    Number(
      new RegExp(
        `would take the answers read past ${mb} MB, the budget of one run \\((\\d+) answers before it\\)`,
      ).exec(line ?? '')?.[1],
    )
  const small = await run('16')
  const large = await run('100')
  expect([small.code, large.code]).toEqual([1, 1])
  // 12 MB a big body: at least seven more of them fit 100 MB than 16 MB (small probes go between).
  expect(
    answersBefore(large.stderr[0], 100) - answersBefore(small.stderr[0], 16),
  ).toBeGreaterThanOrEqual(7)
  expect(await run('8')).toMatchObject({
    code: 2,
    stderr: [
      'taxonomy-mock: --max-read must be a whole number of megabytes from 16 to 8192; received 8 (number)',
    ],
  })
})

it.each(['verify', 'record'])(
  '%s refuses a --max-read of a fraction of a megabyte, though it is a whole number of bytes',
  async (command) => {
    const out = command === 'record' ? ['--out', '/nonexistent-dir/never-written.json'] : []
    for (const maxRead of ['16.5', '16.1'])
      expect(
        await runInProcess(
          [
            command,
            '--target',
            'http://127.0.0.1:9',
            '--discipline',
            'x',
            '--max-read',
            maxRead,
            ...out,
          ],
          ENV,
        ),
      ).toEqual({
        code: 2,
        stdout: [],
        stderr: [
          `taxonomy-mock: --max-read must be a whole number of megabytes from 16 to 8192; received "${maxRead}" (string)`,
        ],
      })
  },
)

it('names a record not looked up by its slug quoted and cut, its controls escaped: a service chose it', async () => {
  const slug = `${'x'.repeat(600_000)}\u009b2J`
  const target = await startRawTarget((res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        id: '00000000-0000-4000-8000-000000000001',
        name: 'History',
        slug: 'history',
        description: 'A discipline',
        domains: [],
        sub_disciplines_count: 1,
        sub_disciplines: [{ id: '00000000-0000-4000-8000-000000000002', name: 'Long', slug }],
      }),
    )
  })
  const run = recordService({
    target,
    apiKey: SECRET,
    disciplines: ['history'],
    rate: 1_000,
    maxRequests: 1,
  })
  const error = (await run.catch((caught: unknown) => caught)) as Error
  expect(error.message).toMatch(
    /^not closed after 1 request: at least 1 more record needed \(e\.g\. sub-discipline "x{10,}/,
  )
  expect(error.message.length).toBeLessThan(400)
  expect(error.message).not.toMatch(/[\u0080-\u009f]/)
})
