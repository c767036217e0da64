import { expect, it } from 'vitest'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { SECRET } from '../helpers/targets.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })

it.each(['http://taxonomy.test/api/v2', 'http://taxonomy.test/api/v2/'])(
  'takes a target that ends in /api/v2 (%s) as the base URL without it, as baseUrl does: no lookup asks /api/v2 twice',
  async (target) => {
    const handle = createFetchHandler({ taxonomy, apiKeys: [SECRET] })
    const asked: string[] = []
    const report = await verifyService({
      target,
      apiKey: SECRET,
      disciplines: [taxonomy.disciplines[0]!.slug],
      rate: Number.POSITIVE_INFINITY,
      fetch: (request) => {
        asked.push(new URL(request.url).pathname)
        return handle(request)
      },
    })
    expect(asked.filter((path) => path.includes('/api/v2/api/v2'))).toEqual([])
    expect(report.target).toBe('http://taxonomy.test')
    expect(report.rules.filter((rule) => rule.status === 'fail')).toEqual([])
  },
)
