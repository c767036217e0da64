import { describeDiscipline, describeSubDiscipline } from './descriptions.js'
import { disciplineWordsOf, domainWordsOf, type UpperPlan } from './plan.js'
import {
  disciplineKeyOf,
  slugKeys,
  splitRepeat,
  subDisciplineKeysOf,
  subDisciplineSlugOf,
  withRepeat,
} from './slug-keys.js'
import { createSubDisciplineDraws } from './sub-draws.js'
import type { IdsByPosition } from '../ids.js'
import type { DeferredLevels } from '../store.js'
import type { FixtureDiscipline, FixtureSubDiscipline } from '../types.js'

/**
 * The disciplines and sub-disciplines of a plan ({@link planUpperLevels}), each written from its
 * numbers when first asked for and kept, so a place always gives the same frozen object (answer
 * caches key on it). A sub-discipline's numbers are its discipline's draws
 * ({@link createSubDisciplineDraws}). A slug is found by its key and its repeat's suffix, and a
 * record's children by their places, so a first answer draws and writes only the records it shows.
 */
export function createUpperLevels(
  plan: UpperPlan,
  ids: { readonly disciplines: IdsByPosition; readonly subDisciplines: IdsByPosition },
): DeferredLevels {
  const keys = slugKeys()
  const { counts, domains } = plan
  const disciplines: (FixtureDiscipline | undefined)[] = new Array(counts.disciplines)
  const subs: (FixtureSubDiscipline | undefined)[] = new Array(counts.subDisciplines)
  // The place of each record written, by the record, one map per level: a discipline passed
  // where a sub-discipline is expected is no record of that level.
  const disciplinePlaces = new Map<object, number>()
  const subPlaces = new Map<object, number>()
  const draws = createSubDisciplineDraws(plan)
  let allDisciplines: readonly FixtureDiscipline[] | undefined
  let allSubs: readonly FixtureSubDiscipline[] | undefined

  function disciplineAt(position: number): FixtureDiscipline {
    return (disciplines[position] ??= writeDiscipline(position, ids.disciplines.at(position)))
  }

  function writeDiscipline(position: number, id: string): FixtureDiscipline {
    const words = disciplineWordsOf(plan, position)
    const draw = plan.disciplines.drawOf(position)
    const domainIds = [position % counts.domains, ...draw.otherDomains].map(
      (domain) => domains[domain]!.id,
    )
    const record: FixtureDiscipline = Object.freeze({
      id,
      name: words.name,
      slug: withRepeat(
        keys.disciplineSlugs[plan.disciplines.keyOf(position)]!,
        plan.disciplines.usesOf(position),
      ),
      description: describeDiscipline(draw.template, words.name, words.study),
      domain_ids: Object.freeze(domainIds),
    })
    disciplinePlaces.set(record, position)
    return record
  }

  function subDisciplineAt(position: number): FixtureSubDiscipline {
    return (subs[position] ??= writeSubDiscipline(position, ids.subDisciplines.at(position)))
  }

  function writeSubDiscipline(position: number, id: string): FixtureSubDiscipline {
    const discipline = plan.subShares.placeOf(position)
    draws.drawNames(discipline)
    const words = disciplineWordsOf(plan, discipline)
    const real = words.subDisciplines[draws.real[position]!]!
    const modifier = draws.modifier[position]!
    const name =
      modifier < 0 ? real : `${domainWordsOf(plan, discipline).modifiers[modifier]!} ${real}`
    const parents = parentsOf(position)
    const disciplineIds: string[] = []
    for (let k = 0; k < parents.length; k++) disciplineIds.push(disciplineAt(parents[k]!).id)
    const record: FixtureSubDiscipline = Object.freeze({
      id,
      name,
      slug: withRepeat(subDisciplineSlugOf(keys, draws.key[position]!), draws.usesOf(position)),
      description: describeSubDiscipline(
        draws.description[3 * position + 2]!,
        words.subjects[draws.description[3 * position]!]!,
        words.subjects[draws.description[3 * position + 1]!]!,
        name,
        words.name,
      ),
      discipline_ids: Object.freeze(disciplineIds),
    })
    subPlaces.set(record, position)
    return record
  }

  function parentsOf(position: number): number[] {
    const discipline = plan.subShares.placeOf(position)
    draws.drawParents(discipline)
    const places = [discipline]
    for (let slot = 2 * position; slot < 2 * position + 2; slot++)
      if (draws.otherParents[slot]! >= 0) places.push(draws.otherParents[slot]!)
    return places
  }

  return {
    disciplineAt,
    subDisciplineAt,
    allDisciplines: () =>
      (allDisciplines ??= writeAll(disciplines, ids.disciplines, writeDiscipline)),
    allSubDisciplines: () => (allSubs ??= writeAll(subs, ids.subDisciplines, writeSubDiscipline)),
    findDiscipline: (slug) => {
      const split = splitRepeat(slug)
      const key = split === undefined ? undefined : disciplineKeyOf(keys, split.base)
      if (key === undefined) return undefined
      // The `uses`th record with a key is the one whose slug takes `-uses`: its places ascend.
      return plan.disciplines.withKey(key)[split!.uses - 1]
    },
    findSubDiscipline: (slug) => {
      const split = splitRepeat(slug)
      if (split === undefined) return undefined
      for (const key of subDisciplineKeysOf(keys, split.base)) {
        const found = draws.withKey(key)[split.uses - 1]
        if (found !== undefined) return found
      }
      return undefined
    },
    disciplinePlaceOf: (record) => disciplinePlaces.get(record),
    subDisciplinePlaceOf: (record) => subPlaces.get(record),
    disciplinesOf: plan.disciplines.inDomain,
    subDisciplinesOf: (discipline) => {
      const found: number[] = []
      let own = plan.subShares.firstOf(discipline)
      const ownEnd = plan.subShares.firstOf(discipline + 1)
      // Its own, contiguous, and those shared into it, ascending: merged in dataset order.
      for (const shared of draws.sharedInto(discipline)) {
        while (own < ownEnd && own < shared) found.push(own++)
        found.push(shared)
      }
      while (own < ownEnd) found.push(own++)
      return found
    },
    parentsOf,
    written: () => ({ disciplines: disciplinePlaces.size, subDisciplines: subPlaces.size }),
  }
}

/**
 * Every record of a level, those written already kept: the rest written in order with the ids of
 * one pass over the level's id stream, rather than each found from a checkpoint.
 */
function writeAll<T>(
  records: (T | undefined)[],
  ids: IdsByPosition,
  write: (position: number, id: string) => T,
): readonly T[] {
  const nextId = ids.source()
  for (let position = 0; position < records.length; position++) {
    const id = nextId()
    records[position] ??= write(position, id)
  }
  return Object.freeze(records as T[])
}
