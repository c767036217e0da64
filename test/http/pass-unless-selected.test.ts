import { expect, it } from 'vitest'
import { createResolver } from '../../src/http/resolver.js'
import { ScenarioState } from '../../src/http/scenario-state.js'
import { AUTH, taxonomy } from '../cases/cases.js'

// MSW helpers only select a scenario: the resolver decides whether it applies, and passes otherwise.
const resolver = createResolver({ taxonomy })
const [first, second] = taxonomy.disciplines
const request = (url: string, method = 'GET') => ({
  method,
  url,
  header: (name: string) => (AUTH as Record<string, string>)[name],
})
const hidden = () =>
  new ScenarioState({ kind: 'not-found', slug: first!.slug, endpoint: 'disciplines' })

it('answers a request a selected scenario applies to', () => {
  const answer = resolver.resolve(request(`/api/v2/disciplines/${first!.slug}`), {
    scenarios: [hidden()],
    passUnlessSelected: true,
  })
  expect(answer).toMatchObject({ status: 404 })
})

it('passes a request no selected scenario applies to: another slug, endpoint or path', () => {
  for (const url of [
    `/api/v2/disciplines/${second!.slug}`,
    `/api/v2/sub_disciplines/${first!.slug}`,
    '/',
    '/__health',
    '/api/v2/other/x',
  ]) {
    expect(
      resolver.resolve(request(url), { scenarios: [hidden()], passUnlessSelected: true }),
      url,
    ).toBeUndefined()
  }
})

it('passes once a scenario has been used its times, and answers preflights while it applies', () => {
  const once = new ScenarioState({ kind: 'unavailable', times: 1 })
  const url = `/api/v2/disciplines/${first!.slug}`
  expect(
    resolver.resolve(request(url, 'OPTIONS'), { scenarios: [once], passUnlessSelected: true }),
  ).toMatchObject({ status: 204 })
  expect(
    resolver.resolve(request(url), { scenarios: [once], passUnlessSelected: true }),
  ).toMatchObject({ status: 503 })
  expect(
    resolver.resolve(request(url), { scenarios: [once], passUnlessSelected: true }),
  ).toBeUndefined()
})
