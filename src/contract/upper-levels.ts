import type { FixtureBuilder } from '../core/fixture.js'
import { byName } from '../core/records.js'
import { ENDPOINT_LIST, noOtherRows, type Collection } from '../http/endpoints.js'
import type { Lookup } from './lookups.js'
import { mergeOrders } from './order.js'

/** A recorded body: a record with at least a summary's fields. */
export type Body = Record<string, unknown> & {
  id: string
  name: string
  slug: string
  description: string
}

/** The recorded levels above the topics, each in the file's order. */
export interface UpperLevels {
  readonly domains: readonly Body[]
  readonly disciplines: readonly Body[]
  readonly subOrder: readonly Body[]
}

/** The bodies looked up, by collection. */
function bodiesByCollection(lookups: readonly Lookup[]): Readonly<Record<Collection, Body[]>> {
  const bodies = Object.fromEntries(
    ENDPOINT_LIST.map(({ collection }) => [collection, [] as Body[]]),
  ) as Record<Collection, Body[]>
  for (const lookup of lookups) bodies[lookup.collection].push(lookup.body as Body)
  return bodies
}

/**
 * The domains (the disciplines' summaries), disciplines and sub-disciplines of a closed set of
 * lookups, in a canonical order (see `mergeOrders`).
 */
export function toUpperLevels(lookups: readonly Lookup[]): UpperLevels {
  const { disciplines, sub_disciplines: subs, ...unrecorded } = bodiesByCollection(lookups)
  // A new endpoint fails to compile here until this function says what its records become.
  noOtherRows(unrecorded)
  const domains = new Map<string, Body>()
  for (const discipline of disciplines) {
    for (const domain of discipline.domains as Body[]) domains.set(domain.id, domain)
  }
  const subOrder =
    mergeOrders(
      subs,
      disciplines.map((discipline) => ids(discipline.sub_disciplines)),
    ) ?? byName(subs)
  return { domains: byName([...domains.values()]), disciplines: byName(disciplines), subOrder }
}

const ids = (items: unknown) => (items as Body[]).map((item) => item.id)

/** Adds the levels above the topics to a fixture, checked as they are made. */
export function addUpperLevels(fixture: FixtureBuilder, levels: UpperLevels): void {
  for (const domain of levels.domains)
    fixture.add('domains', {
      id: domain.id,
      name: domain.name,
      slug: domain.slug,
      description: null,
    })
  for (const d of levels.disciplines)
    fixture.add('disciplines', {
      id: d.id,
      name: d.name,
      slug: d.slug,
      description: d.description,
      domain_ids: ids(d.domains),
    })
  for (const s of levels.subOrder)
    fixture.add('sub_disciplines', {
      id: s.id,
      name: s.name,
      slug: s.slug,
      description: s.description,
      discipline_ids: ids(s.disciplines),
    })
}
