import { expect, it } from 'vitest'
import { UnreachableError } from '../../src/contract/client.js'
import { recordService } from '../../src/contract/record.js'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import type { Size } from '../../src/core/size.js'
import type { Scenario } from '../../src/http/scenario.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { startTestServer } from '../helpers/server.js'
import { SECRET, runInProcess } from '../helpers/targets.js'

/** The first discipline with sub-disciplines, and a sub-discipline with topics: where verify starts. */
function startOf(seed: number, size: Size) {
  const taxonomy = createTaxonomy({ seed, size })
  return {
    disciplines: [taxonomy.disciplines[0]!.slug],
    subDisciplines: [
      taxonomy.subDisciplines.find((sub) => taxonomy.topicsOf(sub).length > 1)!.slug,
    ],
  }
}

it.each([
  [1, 'small'],
  [7, 'small'],
  [42, 'small'],
  [42, 'medium'],
  [2024, 'medium'],
] as const)(
  'passes every rule, with every observation as the mock does it, against taxonomy-mock seed %i %s',
  async (seed, size) => {
    const report = await verifyService({
      target: 'http://taxonomy.test',
      apiKey: SECRET,
      ...startOf(seed, size),
      crawl: 25,
      rate: 1_000,
      fetch: createFetchHandler({ seed, size, apiKeys: [SECRET] }),
    })
    expect(report.rules.filter((rule) => rule.status !== 'pass')).toEqual([])
    expect(report.observations.filter((o) => o.verdict !== 'same')).toEqual([])
    // The crawl went past the two records it started from (a small dataset links few more).
    expect(report.records.disciplines + report.records.subDisciplines).toBeGreaterThan(3)
    expect(report.records.disciplines + report.records.subDisciplines).toBeLessThanOrEqual(27)
  },
)

it('names exactly the options a server was started with, over a socket through the CLI', async () => {
  const server = await startTestServer({
    seed: 5,
    size: 'small',
    apiKeys: [SECRET],
    statuses: { unauthorized: 403, notFound: 410 },
    order: 'id',
    cors: false,
  })
  const start = startOf(5, 'small')
  const { code, stdout } = await runInProcess(
    [
      'verify',
      '--target',
      server.url,
      '--discipline',
      start.disciplines[0]!,
      '--sub-discipline',
      start.subDisciplines[0]!,
      '--crawl',
      '10',
      '--rate',
      '500',
    ],
    { TAXONOMY_API_KEY: SECRET },
  )
  expect(code).toBe(0)
  expect(stdout).toContain(
    'To make the mock match: taxonomy-mock --unauthorized-status 403 --not-found-status 410 --no-cors --order id',
  )
})

it.each([
  [{ kind: 'network-error' }, /: no HTTP answer \(Response\.error\(\)\)$/],
  [{ kind: 'empty' }, /: no HTTP answer \(Response\.error\(\)\)$/],
  [{ kind: 'hang' }, /: no answer in time \(timeout\)$/],
  [{ kind: 'delay', delay: 600_000 }, /: no answer in time \(timeout\)$/],
] as const)(
  'ends an in-process run as a run over a socket ends: %o cannot be reached, for verify and record',
  async (scenario, reason) => {
    const options = {
      target: 'http://taxonomy.test',
      apiKey: SECRET,
      disciplines: ['pharmacology'],
      rate: Infinity,
      timeout: 50,
    }
    for (const run of [verifyService, recordService]) {
      const fetch = createFetchHandler({ size: 'small', apiKeys: [SECRET], scenario })
      const failed = run({ ...options, fetch })
      await expect(failed).rejects.toThrow(UnreachableError)
      await expect(failed).rejects.toThrow(reason)
    }
  },
)

it('asks again once in-process, as over a socket, when the first answer is no answer', async () => {
  const scenario: Scenario = { sequence: ['network-error', 'usual'] }
  const report = await verifyService({
    target: 'http://taxonomy.test',
    apiKey: SECRET,
    disciplines: ['pharmacology'],
    rate: Infinity,
    fetch: createFetchHandler({ size: 'small', apiKeys: [SECRET], scenario }),
  })
  expect(report.rules.filter((rule) => rule.status === 'fail')).toEqual([])
})
