import { expect, it, vi } from 'vitest'
import { createResolver } from '../../src/http/resolver.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import {
  AUTH,
  CASES,
  RECORD_CASES,
  SERVER_CASES,
  expectCase,
  taxonomy,
  pickHeaders,
  toHeaders,
} from '../cases/cases.js'
import { resolveNow, viaResolver, authorization } from '../helpers/transports.js'

const resolver = createResolver({ taxonomy })

it.each([...CASES, ...SERVER_CASES])('resolver $name', (c) => {
  expectCase(viaResolver(resolver, c), c, expect)
})

it('answers every record of the small dataset with its exact body', () => {
  for (const c of RECORD_CASES) expectCase(viaResolver(resolver, c), c, expect)
})

it('answers the same through the fetch-style handler, from web Request objects', async () => {
  const handle = createFetchHandler(resolver)
  for (const c of [...CASES, ...SERVER_CASES]) {
    const response = await handle(
      new Request(`http://mock.test${c.path}`, { method: c.method, headers: toHeaders(c.headers) }),
    )
    const observed = {
      status: response.status,
      headers: pickHeaders((n) => response.headers.get(n)),
      body: await response.text(),
    }
    expect(observed).toEqual(viaResolver(resolver, c))
  }
})

it('serialises each record once and reuses the bytes', () => {
  const c = RECORD_CASES[0]!
  const first = resolveNow(resolver, {
    method: 'GET',
    url: c.path,
    header: authorization(AUTH.authorization),
  })
  const second = resolveNow(resolver, {
    method: 'GET',
    url: c.path,
    header: authorization(AUTH.authorization),
  })
  expect(second.body).toBe(first.body)
})

it('answers a record whose JSON is longer than a string holds, in the bytes it would have', () => {
  // Explicit counts allow millions of topics in one sub-discipline: more JSON than V8's longest
  // string, which JSON.stringify refuses with a RangeError. Here the limit is made small.
  const sub = taxonomy.subDisciplines.find((s) => taxonomy.topicCountOf(s) > 3)!
  const ask = () =>
    resolveNow(createResolver({ taxonomy }), {
      method: 'GET',
      url: `/api/v2/sub_disciplines/${sub.slug}`,
      header: authorization(AUTH.authorization),
    })
  const expected = ask()
  const stringify = JSON.stringify
  const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args) => {
    const text = stringify(...(args as Parameters<typeof stringify>))
    if (text !== undefined && text.length > 1000) throw new RangeError('Invalid string length')
    return text
  })
  try {
    const answer = ask()
    expect(answer.status).toBe(200)
    expect(new TextDecoder().decode(answer.body!)).toBe(new TextDecoder().decode(expected.body!))
    expect(answer.headers['content-length']).toBe(expected.headers['content-length'])
  } finally {
    spy.mockRestore()
  }
})

it('answers a target asked before from the new data once the taxonomy is replaced', () => {
  const replaced = createResolver({ taxonomy })
  const c = RECORD_CASES[0]!
  const ask = () =>
    resolveNow(replaced, { method: 'GET', url: c.path, header: authorization(AUTH.authorization) })
  const before = ask()
  expect(before.status).toBe(200)
  const slug = c.path.slice(c.path.lastIndexOf('/') + 1)
  // The first case is a discipline's.
  replaced.replaceTaxonomy(
    patchTaxonomy(taxonomy, { disciplines: [{ slug, name: 'Renamed Discipline' }] }),
  )
  const after = ask()
  expect(after.status).toBe(200)
  expect(new TextDecoder().decode(after.body!)).toContain('Renamed Discipline')
  expect(after.body).not.toEqual(before.body)
})

it('answers a slug that was not found once the replacing taxonomy has it', () => {
  const replaced = createResolver({ taxonomy })
  const ask = () =>
    resolveNow(replaced, {
      method: 'GET',
      url: '/api/v2/disciplines/cs',
      header: authorization('Bearer taxonomy-mock-key'),
    })
  expect(ask().status).toBe(404)
  replaced.replaceTaxonomy(
    patchTaxonomy(taxonomy, {
      disciplines: [
        { name: 'Computer Science', slug: 'cs', domain_ids: [taxonomy.domains[0]!.id] },
      ],
    }),
  )
  expect(ask().status).toBe(200)
})

it('refuses to replace its taxonomy with what is none, naming `taxonomy` in `option` and saying what arrived', () => {
  const replaced = createResolver({ taxonomy })
  // A plain TypeError without `option`, which said nothing of what arrived.
  expect(() => replaced.replaceTaxonomy(taxonomy.toFixture() as never)).toThrow(
    expect.objectContaining({
      option: 'taxonomy',
      message:
        '`taxonomy` must be a taxonomy from createTaxonomy() or loadTaxonomy(); received a fixture object; load it with loadTaxonomy() first',
    }),
  )
  expect(() => replaced.replaceTaxonomy(null as never)).toThrow(
    expect.objectContaining({
      option: 'taxonomy',
      message: expect.stringMatching(/received null$/),
    }),
  )
})

it('refuses a request that is none, naming `request` (or `context`) and saying what arrived, rather than failing inside', () => {
  const resolver = createResolver({ taxonomy })
  const refusal = (request: unknown, context?: unknown) => {
    try {
      resolver.resolve(request as never, context as never)
    } catch (error) {
      return error
    }
    return undefined
  }
  // Before, a TypeError from inside: "Cannot read properties of null (reading 'url')",
  // "request.header is not a function"; a URL string was answered 404.
  const requirement =
    'must be an object with `method` and `url` strings and a `header(name)` function; received'
  for (const [request, received] of [
    [null, 'null'],
    [undefined, 'undefined (undefined)'],
    ['/api/v2/disciplines/x', '"/api/v2/disciplines/x" (string)'],
    [
      { method: 'GET', url: '/api/v2/disciplines/x' },
      'an object whose `header` is undefined (undefined)',
    ],
    [{ method: 'GET', url: 5, header: () => null }, 'an object whose `url` is 5 (number)'],
  ] as const)
    expect(refusal(request)).toEqual(
      expect.objectContaining({
        name: 'TypeError',
        option: 'request',
        message: `\`request\` ${requirement} ${received}`,
      }),
    )
  const request = { method: 'GET', url: '/api/v2/disciplines/x', header: () => null }
  expect(refusal(request, null)).toEqual(
    expect.objectContaining({
      option: 'context',
      message: "`context` must be an object such as { basePath: '/mock' }; received null",
    }),
  )
  // A request with what the resolver reads is answered as ever: here, without a key.
  expect(resolveNow(resolver, request).status).toBe(401)
})

it('accepts several keys, any of them', () => {
  const multi = createResolver({ taxonomy, apiKeys: ['one', 'two'] })
  const c = RECORD_CASES[0]!
  for (const key of ['one', 'two']) {
    expect(
      resolveNow(multi, { method: 'GET', url: c.path, header: authorization(`Bearer ${key}`) })
        .status,
    ).toBe(200)
  }
  expect(
    resolveNow(multi, {
      method: 'GET',
      url: c.path,
      header: authorization('Bearer taxonomy-mock-key'),
    }).status,
  ).toBe(401)
})

it('accepts any non-empty key in any-key mode, and still refuses none', () => {
  const any = createResolver({ taxonomy, anyKey: true })
  const c = RECORD_CASES[0]!
  expect(
    resolveNow(any, {
      method: 'GET',
      url: c.path,
      header: authorization('Bearer whatever-the-app-sends'),
    }).status,
  ).toBe(200)
  expect(
    resolveNow(any, { method: 'GET', url: c.path, header: authorization('Bearer ') }).status,
  ).toBe(401)
  expect(resolveNow(any, { method: 'GET', url: c.path, header: () => undefined }).status).toBe(401)
})

it('sends no CORS headers when CORS is off, and still answers preflights with Allow', () => {
  const closed = createResolver({ taxonomy, cors: false })
  for (const c of CASES) {
    const answer = resolveNow(closed, {
      method: c.method,
      url: c.path,
      header: (n: string) => toHeaders(c.headers).get(n),
    })
    expect(
      Object.keys(answer.headers).filter((h) => h.startsWith('access-control-')),
      c.name,
    ).toEqual([])
  }
})

it('routes under a base path and ignores what lies outside it', () => {
  const c = RECORD_CASES[0]!
  const request = (url: string) => ({
    method: 'GET',
    url,
    header: authorization(AUTH.authorization),
  })
  expect(
    resolveNow(resolver, request(`https://x.test/mock${c.path}`), { basePath: '/mock' }).status,
  ).toBe(200)
  expect(
    resolveNow(resolver, request(`https://x.test/other${c.path}`), { basePath: '/mock' }).status,
  ).toBe(404)
})

it('rejects bad options with a TypeError naming the option', () => {
  expect(() => createResolver({ taxonomy, delay: -5 })).toThrow(
    '`delay` must be a number of milliseconds from 0 to 2147483647; received -5 (number)',
  )
  expect(() => createResolver({ taxonomy, apiKeys: [] })).toThrow(
    '`apiKeys` must be a key or a non-empty array of keys',
  )
  expect(() => createResolver({ taxonomy, apiKeys: ['secret-with-newline\n'] })).toThrow(
    '`apiKeys` must hold keys of 1-256 visible ASCII characters with no spaces; received a string of 20 characters',
  )
  expect(() => createResolver({ taxonomy, apiKeys: ['\n'] })).toThrow(
    /received a string of 1 character$/,
  )
  expect(() => createResolver({ taxonomy, anyKey: true, apiKeys: ['k'] })).toThrow(
    '`anyKey` excludes `apiKeys`',
  )
  expect(() => createResolver({ taxonomy, seed: 1 } as never)).toThrow(
    '`taxonomy` excludes `seed` and `size`',
  )
  expect(() => createResolver({ taxonomy, cors: 'no' as never })).toThrow(
    '`cors` must be true or false; received "no" (string)',
  )
})
