import { resolveNow, authorization } from '../helpers/transports.js'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { createResolver } from '../../src/http/resolver.js'

const base = createTaxonomy({ seed: 42, size: 'small' })
const get = (resolver: ReturnType<typeof createResolver>, url: string, method = 'GET') => {
  const answer = resolveNow(resolver, { method, url, header: () => undefined })
  return { ...answer, text: answer.body ? new TextDecoder().decode(answer.body) : '' }
}

it('serves the index without a key, listing every discipline with its slug and link', () => {
  const page = get(createResolver({ taxonomy: base }), '/')
  expect(page.status).toBe(200)
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
  for (const discipline of base.disciplines) {
    expect(page.text).toContain(`<a href="/browse/disciplines/${discipline.slug}">${discipline.name}</a>`)
  }
  expect(page.text).toContain('Seed <code>42</code>')
  expect(page.text).toContain('Accepted key: <code>taxonomy-mock-key</code>')
})

it("shows a record's page with the API's JSON, without a key", () => {
  const resolver = createResolver({ taxonomy: base })
  const discipline = base.disciplines[1]!
  const page = get(resolver, `/browse/disciplines/${discipline.slug}`)
  expect(page.status).toBe(200)
  const api = resolveNow(resolver, { method: 'GET', url: `/api/v2/disciplines/${discipline.slug}`, header: authorization('Bearer taxonomy-mock-key') })
  const shown = /<pre id="api-json">([\s\S]*?)<\/pre>/.exec(page.text)![1]!.replaceAll('&#34;', '"').replaceAll('&#39;', "'").replaceAll('&#38;', '&')
  expect(JSON.parse(shown)).toEqual(JSON.parse(new TextDecoder().decode(api.body!)))
})

it('escapes names from the data and forbids scripts, since fixtures are user input', () => {
  const hostile = patchTaxonomy(base, { disciplines: [{ slug: base.disciplines[0]!.slug, name: '<script>alert("x")</script>' }] })
  const resolver = createResolver({ taxonomy: hostile })
  for (const url of ['/', `/browse/disciplines/${base.disciplines[0]!.slug}`]) {
    const page = get(resolver, url)
    expect(page.text).not.toContain('<script>')
    expect(page.text).toContain('&#60;script&#62;')
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'")
  }
})

it('masks keys other than the default on the index', () => {
  const page = get(createResolver({ taxonomy: base, apiKeys: ['a-long-secret-key'] }), '/')
  expect(page.text).not.toContain('a-long-secret-key')
  expect(page.text).toContain('a-lo…key')
})

it('answers 404 for an unknown record page and 405 for writes, as JSON', () => {
  const resolver = createResolver({ taxonomy: base })
  expect(get(resolver, '/browse/disciplines/nope')).toMatchObject({ status: 404, text: '{"error":"Resource not found"}' })
  expect(get(resolver, '/browse/topics/x').status).toBe(404)
  expect(get(resolver, '/', 'POST').status).toBe(405)
  expect(get(resolver, '/', 'HEAD')).toMatchObject({ status: 200, body: null })
})
