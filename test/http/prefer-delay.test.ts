import { expect, it } from 'vitest'
import { createResolver, sessionsOf } from '../../src/http/resolver.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { resolveNow } from '../helpers/transports.js'

const D = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

/** The delays a resolver gives `count` requests with `Prefer: delay=0-1000`, in one session. */
function delays(
  count: number,
  session?: string,
  resolver = createResolver({ taxonomy }),
): number[] {
  const headers: Record<string, string> = {
    ...AUTH,
    prefer: 'delay=0-1000',
    ...(session ? { 'x-taxonomy-mock-session': session } : {}),
  }
  return Array.from(
    { length: count },
    () =>
      resolveNow(resolver, { method: 'GET', url: D, header: (name) => headers[name] }).delay ?? 0,
  )
}

it('draws a Prefer delay range per request from the session stream: distinct values within range, the same series on a rerun', () => {
  const series = delays(20)
  expect(new Set(series).size).toBeGreaterThan(15)
  for (const ms of series)
    expect(ms >= 0 && ms <= 1000 && Number.isInteger(ms), String(ms)).toBe(true)
  expect(delays(20)).toEqual(series)
})

it('gives each session its own Prefer delay series, whatever other sessions ask in between', () => {
  const resolver = createResolver({ taxonomy })
  const alone = delays(10, 'a')
  const interleaved: number[] = []
  for (let i = 0; i < 10; i++) {
    interleaved.push(...delays(1, 'a', resolver))
    delays(3, 'b', resolver)
  }
  expect(interleaved).toEqual(alone)
})

it('starts a forgotten session over at the start of its Prefer delay series', () => {
  const resolver = createResolver({ taxonomy })
  const first = delays(5, 'a', resolver)
  sessionsOf(resolver).delete('a')
  expect(delays(5, 'a', resolver)).toEqual(first)
})
