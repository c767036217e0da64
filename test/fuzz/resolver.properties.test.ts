import fc from 'fast-check'
import { resolveNow, authorization as onlyAuthorization } from '../helpers/transports.js'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import { createResolver } from '../../src/http/resolver.js'
import { METHODS, authorizationArbitrary, pathArbitrary, segmentArbitrary } from './arbitraries.js'

const RUNS = 10_000
const KEY = 'taxonomy-mock-key'
const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const DOCUMENTED = new Set([200, 204, 400, 401, 404, 405])
const decoder = new TextDecoder()

const modes = [
  ['default options', createResolver({ taxonomy })],
  ['CORS off', createResolver({ taxonomy, cors: false })],
  ['several keys and a delay', createResolver({ taxonomy, apiKeys: [KEY, 'other-key'], delay: 5 })],
] as const

it.each(modes)(
  'never throws and answers only documented statuses, with JSON errors (%s)',
  (_, resolver) => {
    fc.assert(
      fc.property(
        fc.constantFrom(...METHODS),
        pathArbitrary(taxonomy),
        authorizationArbitrary(KEY),
        (method, url, authorization) => {
          const answer = resolveNow(resolver, {
            method,
            url,
            header: onlyAuthorization(authorization),
          })
          expect(DOCUMENTED.has(answer.status)).toBe(true)
          if (answer.body)
            expect(answer.headers['content-length']).toBe(String(answer.body.byteLength))
          if (method === 'HEAD' || method === 'OPTIONS') expect(answer.body).toBeNull()
          if (answer.status >= 400) {
            expect(answer.headers['content-type']).toBe('application/json')
            if (answer.body)
              expect(JSON.parse(decoder.decode(answer.body))).toEqual({ error: expect.any(String) })
          }
        },
      ),
      { numRuns: RUNS },
    )
  },
)

it('always answers a valid request with a valid key with the record', () => {
  const resolver = createResolver({ taxonomy })
  const records = [
    ...taxonomy.disciplines.map((d) => ({
      path: `/api/v2/disciplines/${d.slug}`,
      body: JSON.stringify(toDisciplineRecord(taxonomy, d)),
    })),
    ...taxonomy.subDisciplines.map((s) => ({
      path: `/api/v2/sub_disciplines/${s.slug}`,
      body: JSON.stringify(toSubDisciplineRecord(taxonomy, s)),
    })),
  ]
  const spacing = fc.constantFrom(' ', '  ', '\t', ' \t ')
  const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR')
  const query = fc.oneof(
    fc.constant(''),
    fc.string({ maxLength: 30 }).map((q) => `?${encodeURIComponent(q)}`),
  )
  fc.assert(
    fc.property(fc.constantFrom(...records), scheme, spacing, query, (record, s, space, q) => {
      const answer = resolveNow(resolver, {
        method: 'GET',
        url: record.path + q,
        header: onlyAuthorization(`${s}${space}${KEY}`),
      })
      expect(answer.status).toBe(200)
      expect(decoder.decode(answer.body!)).toBe(record.body)
    }),
    { numRuns: RUNS },
  )
})

it('answers 401, and nothing about the data, to any request without a valid key under /api/', () => {
  const resolver = createResolver({ taxonomy })
  fc.assert(
    fc.property(
      segmentArbitrary(taxonomy),
      fc.constantFrom('disciplines', 'sub_disciplines', 'topics'),
      authorizationArbitrary('wrong-key'),
      (segment, collection, authorization) => {
        const answer = resolveNow(resolver, {
          method: 'GET',
          url: `/api/v2/${collection}/${segment}`,
          header: onlyAuthorization(authorization),
        })
        expect(answer.status).toBe(401)
      },
    ),
    { numRuns: RUNS },
  )
})
