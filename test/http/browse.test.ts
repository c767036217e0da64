import { resolveNow, authorization, loopbackAdmin } from '../helpers/transports.js'
import { expect, it } from 'vitest'
import { countBuiltTopics, createTaxonomy } from '../../src/core/generate.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { createResolver } from '../../src/http/resolver.js'
import { cloneFixture } from '../helpers/fixtures.js'

const base = createTaxonomy({ seed: 42, size: 'small' })
const get = (resolver: ReturnType<typeof createResolver>, url: string, method = 'GET') => {
  const answer = resolveNow(resolver, { method, url, header: () => undefined })
  return { ...answer, text: answer.body ? new TextDecoder().decode(answer.body) : '' }
}

/** What a page says of its dataset: the HTML of its `#dataset` element. */
const dataset = (url: string, options: Parameters<typeof createResolver>[0]) =>
  /<span id="dataset">(.*?)<\/span>/.exec(get(createResolver(options), url).text)?.[1]

it('serves the index without a key, listing every discipline with its slug and link', () => {
  const page = get(createResolver({ taxonomy: base }), '/')
  expect(page.status).toBe(200)
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
  for (const discipline of base.disciplines) {
    expect(page.text).toContain(
      `<a href="/browse/disciplines/${discipline.slug}"><bdi>${discipline.name}</bdi></a>`,
    )
  }
  expect(page.text).toContain(
    'Data <span id="dataset">generated from seed <code>42</code>, size <code>small</code></span>: 3 domains, 10 disciplines',
  )
  expect(page.text).toContain('Accepted key: <code>taxonomy-mock-key</code>')
})

it('names the dataset on the index and on each record page: one slug has another id in another size', () => {
  const medium = createTaxonomy({ seed: 42, size: 'medium' })
  const custom = createTaxonomy({ seed: 7, size: { topics: 10 } })
  // A slug of every dataset below, so each record page exists.
  const slug = base.disciplines.find(
    (discipline) =>
      medium.findDiscipline(discipline.slug) !== undefined &&
      custom.findDiscipline(discipline.slug) !== undefined,
  )!.slug
  expect(medium.findDiscipline(slug)!.id).not.toBe(base.findDiscipline(slug)!.id)
  for (const url of ['/', `/browse/disciplines/${slug}`]) {
    expect(dataset(url, { seed: 42, size: 'small' })).toBe(
      'generated from seed <code>42</code>, size <code>small</code>',
    )
    expect(dataset(url, { seed: 42 })).toBe(
      'generated from seed <code>42</code>, size <code>medium</code>',
    )
    expect(dataset(url, { taxonomy: custom })).toBe(
      'generated from seed <code>7</code>, a custom size',
    )
  }
})

it('says loaded data is loaded, with its format and the seed it records, even when it is an unchanged export', () => {
  const exported = loadTaxonomy(base.toFixture())
  const recorded = loadTaxonomy({ ...base.toFixture(), format: 'taxonomy-mock/v1.1', seed: null })
  const slug = base.disciplines[0]!.slug
  for (const url of ['/', `/browse/disciplines/${slug}`]) {
    expect(dataset(url, { taxonomy: exported })).toBe(
      'loaded from a fixture of format <code>taxonomy-mock/v1</code>, seed <code>42</code> as the fixture records it',
    )
    expect(dataset(url, { taxonomy: recorded })).toBe(
      'loaded from a fixture of format <code>taxonomy-mock/v1.1</code>, no seed',
    )
    expect(dataset(url, { taxonomy: patchTaxonomy(base, {}) })).toBe(
      'loaded from a fixture of format <code>taxonomy-mock/v1</code>, no seed',
    )
  }
})

it("shows a record's page with the API's JSON, without a key", () => {
  const resolver = createResolver({ taxonomy: base })
  const discipline = base.disciplines[1]!
  const page = get(resolver, `/browse/disciplines/${discipline.slug}`)
  expect(page.status).toBe(200)
  const api = resolveNow(resolver, {
    method: 'GET',
    url: `/api/v2/disciplines/${discipline.slug}`,
    header: authorization('Bearer taxonomy-mock-key'),
  })
  const shown = /<pre id="api-json">([\s\S]*?)<\/pre>/
    .exec(page.text)![1]!
    .replaceAll('&#34;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&#38;', '&')
  expect(JSON.parse(shown)).toEqual(JSON.parse(new TextDecoder().decode(api.body!)))
})

it('escapes names from the data and forbids scripts, since fixtures are user input', () => {
  const hostile = patchTaxonomy(base, {
    disciplines: [{ slug: base.disciplines[0]!.slug, name: '<script>alert("x")</script>' }],
  })
  const resolver = createResolver({ taxonomy: hostile })
  for (const url of ['/', `/browse/disciplines/${base.disciplines[0]!.slug}`]) {
    const page = get(resolver, url)
    expect(page.text).not.toContain('<script>')
    expect(page.text).toContain('&#60;script&#62;')
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'",
    )
  }
})

it('keeps a bidi control in a name inside the name, so the slug beside it reads as it is', () => {
  // An unclosed U+202E (right-to-left override) would otherwise run on to the end of the line:
  // the slug `dom` beside the name showed as `mod`. Each name is its own bidi isolate.
  const name = 'Dom \u202e \u2713'
  const hostile = patchTaxonomy(base, {
    domains: [{ slug: base.domains[0]!.slug, name }],
    disciplines: [{ slug: base.disciplines[0]!.slug, name }],
  })
  const resolver = createResolver({ taxonomy: hostile })
  const index = get(resolver, '/').text
  expect(index).toContain(
    `<h2><bdi>${name}</bdi> <span class="slug">${base.domains[0]!.slug}</span></h2>`,
  )
  expect(index).toContain(
    `<a href="/browse/disciplines/${base.disciplines[0]!.slug}"><bdi>${name}</bdi></a>`,
  )
  const page = get(resolver, `/browse/disciplines/${base.disciplines[0]!.slug}`).text
  expect(page).toContain(`<h1><bdi>${name}</bdi></h1>`)
  expect(page).toContain(`<title>\u2068Dom  \u2713\u2069 · taxonomy-mock</title>`)
  // In the answer's JSON, the control is the escape that means it, so it reverses nothing.
  expect(page).toContain('&#34;name&#34;: &#34;Dom \\u202e \u2713&#34;')
})

it("keeps a name's own isolate end from ending the title's isolate early", () => {
  const name = 'A\u2069\u202eB'
  const hostile = patchTaxonomy(base, { disciplines: [{ slug: base.disciplines[0]!.slug, name }] })
  const page = get(
    createResolver({ taxonomy: hostile }),
    `/browse/disciplines/${base.disciplines[0]!.slug}`,
  ).text
  expect(page).toContain('<title>\u2068AB\u2069 · taxonomy-mock</title>')
})

// The index counts a generated dataset's topics from its counts: listing them would build every
// topic, a million at `--size large` (1.2 s and 340 MB more RSS before its first index page).
it("counts a generated dataset's topics on the index without building them", () => {
  // A seed no other test uses: createTaxonomy shares recent datasets, and this one must start unbuilt.
  const taxonomy = createTaxonomy({ seed: 920_001, size: 'medium' })
  const page = get(createResolver({ taxonomy }), '/')
  expect(page.text).toContain('250 sub-disciplines, 4500 topics.')
  expect(countBuiltTopics(taxonomy)).toBe(0)
})

// A patched session's index counts them too: the base's count and the topics the patch adds.
it("counts a patched session's topics on the index without building the generated base's", async () => {
  const size = { domains: 3, disciplines: 12, subDisciplines: 60, topics: 3_000 }
  // A seed no other test uses: createTaxonomy shares recent datasets, and this one must start unbuilt.
  const taxonomy = createTaxonomy({ seed: 920_002, size })
  const resolver = createResolver({ taxonomy })
  const put = (session: string, patch: unknown) =>
    resolver.resolve(
      loopbackAdmin('PUT', `/__admin/sessions/${session}/data`, JSON.stringify(patch)),
    )
  expect((await put('many', { preset: 'many-parents' })).status).toBe(200)
  const page = get(resolver, '/?session=many').text
  expect(page).toContain('3 domains, 13 disciplines, 61 sub-disciplines, 3000 topics.')
  expect(countBuiltTopics(taxonomy)).toBe(0)
  // A patch that replaces one topic and adds two: the count is the one of the whole patched data.
  const sub = taxonomy.subDisciplines[0]!
  const patch = {
    topics: [
      { slug: taxonomy.topicsOf(sub)[0]!.slug, name: 'Replaced' },
      { name: 'Added One', sub_discipline_ids: [sub.id] },
      { name: 'Added Two', sub_discipline_ids: [sub.id] },
    ],
  }
  expect((await put('topics', patch)).status).toBe(200)
  const whole = patchTaxonomy(createTaxonomy({ seed: 920_002, size }), patch).topics.length
  expect(whole).toBe(3_002)
  expect(get(resolver, '/?session=topics').text).toContain(`, ${whole} topics.`)
})

it('counts one domain, discipline or topic in the singular on the index', () => {
  const one = loadTaxonomy(cloneFixture())
  expect(get(createResolver({ taxonomy: one }), '/').text).toContain(
    ': 1 domain, 1 discipline, 1 sub-discipline, 1 topic.',
  )
})

it('shows no part of keys other than the default on the index', () => {
  const page = get(createResolver({ taxonomy: base, apiKeys: ['a-long-secret-key'] }), '/')
  expect(page.text).not.toContain('a-lo')
  expect(page.text).toContain('1 other key (not shown)')
})

it('answers 404 for an unknown record page and 405 for writes, as JSON', () => {
  const resolver = createResolver({ taxonomy: base })
  expect(get(resolver, '/browse/disciplines/nope')).toMatchObject({
    status: 404,
    text: '{"error":"Resource not found"}',
  })
  expect(get(resolver, '/browse/topics/x').status).toBe(404)
  expect(get(resolver, '/', 'POST').status).toBe(405)
  expect(get(resolver, '/', 'HEAD')).toMatchObject({ status: 200, body: null })
})

it('keeps the index linear and bounded for a valid fixture built to blow it up', () => {
  // One discipline under 20 domains, 10,000 sub-disciplines named with 500 '&' (each escapes to 2,500 characters).
  const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
  const domains = Array.from({ length: 20 }, (_, i) => ({
    id: uuid(i + 1),
    name: `Domain ${i}`,
    slug: `domain-${i}`,
    description: 'd',
  }))
  const discipline = {
    id: uuid(100),
    name: 'Everything',
    slug: 'everything',
    description: 'd',
    domain_ids: domains.map((d) => d.id),
  }
  const subs = Array.from({ length: 10_000 }, (_, i) => ({
    id: uuid(1_000 + i),
    name: '&'.repeat(500),
    slug: `s-${i}`,
    description: 'd',
    discipline_ids: [discipline.id],
  }))
  const taxonomy = loadTaxonomy({
    format: 'taxonomy-mock/v1',
    seed: null,
    domains,
    disciplines: [discipline],
    sub_disciplines: subs,
    topics: [],
  })
  const resolver = createResolver({ taxonomy })
  // How fast, and that twice the sub-disciplines take about twice as long: `npm run bench`, "Browse pages".
  const index = get(resolver, '/')
  const record = get(resolver, '/browse/disciplines/everything')
  expect(index.status).toBe(200)
  expect(index.text.length).toBeLessThan(2_100_000)
  expect(index.text).toContain('(sub-disciplines under <bdi>Domain 0</bdi>)')
  expect(index.text).toContain('and 9,800 more')
  expect(record.status).toBe(200)
  expect(record.text.length).toBeLessThan(6_000_000)
  expect(record.text).toContain('the API answers in full')
})

it('answers /__health at once under the `delay` option, which still delays the pages and the API', () => {
  // A probe with a 1 s timeout (Kubernetes' default) or the image's 2 s health check must not
  // fail a server that serves: `--delay` is latency for clients of the API, not for its probes.
  const resolver = createResolver({ taxonomy: base, delay: 3000 })
  expect(get(resolver, '/__health').delay).toBeUndefined()
  expect(get(resolver, '/__health', 'HEAD').delay).toBeUndefined()
  expect(get(resolver, '/').delay).toBe(3000)
  expect(get(resolver, '/openapi.json').delay).toBe(3000)
  const api = resolveNow(resolver, {
    method: 'GET',
    url: `/api/v2/disciplines/${base.disciplines[0]!.slug}`,
    header: authorization('Bearer taxonomy-mock-key'),
  })
  expect(api.delay).toBe(3000)
})
