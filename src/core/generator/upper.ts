import { describeDiscipline, describeSubDiscipline } from './descriptions.js'
import { disciplineWordsOf, domainWordsOf, type UpperPlan } from './plan.js'
import { groupPlaces, type PlacesByKey } from './places-by-key.js'
import {
  disciplineKeyOf,
  slugKeys,
  splitRepeat,
  subDisciplineKeyCount,
  subDisciplineKeysOf,
  subDisciplineSlugOf,
  withRepeat,
} from './slug-keys.js'
import type { IdsByPosition } from '../ids.js'
import type { DeferredLevels } from '../store.js'
import type { FixtureDiscipline, FixtureSubDiscipline } from '../types.js'

/**
 * The disciplines and sub-disciplines of a plan ({@link planUpperLevels}), each written from its
 * numbers when first asked for and kept, so a place always gives the same frozen object (answer
 * caches key on it). A slug is found by its key and its repeat's suffix in the plan's arrays, and
 * a record's children by their places, so a first answer writes only the records it shows.
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
  // Each level's places by slug key, and each discipline's sub-disciplines drawn for another
  // discipline: made on first use.
  let disciplinesBySlug: PlacesByKey | undefined
  let subsBySlug: PlacesByKey | undefined
  let sharedInto: PlacesByKey | undefined
  let allDisciplines: readonly FixtureDiscipline[] | undefined
  let allSubs: readonly FixtureSubDiscipline[] | undefined

  function disciplineAt(position: number): FixtureDiscipline {
    return (disciplines[position] ??= writeDiscipline(position, ids.disciplines.at(position)))
  }

  function writeDiscipline(position: number, id: string): FixtureDiscipline {
    const words = disciplineWordsOf(plan, position)
    const domainIds = withOthers(
      position % counts.domains,
      plan.disciplineOtherDomains,
      position,
    ).map((domain) => domains[domain]!.id)
    const record: FixtureDiscipline = Object.freeze({
      id,
      name: words.name,
      slug: withRepeat(
        keys.disciplineSlugs[plan.disciplineKey[position]!]!,
        plan.disciplineUses[position]!,
      ),
      description: describeDiscipline(plan.disciplineTemplate[position]!, words.name, words.study),
      domain_ids: Object.freeze(domainIds),
    })
    disciplinePlaces.set(record, position)
    return record
  }

  function subDisciplineAt(position: number): FixtureSubDiscipline {
    return (subs[position] ??= writeSubDiscipline(position, ids.subDisciplines.at(position)))
  }

  function writeSubDiscipline(position: number, id: string): FixtureSubDiscipline {
    const discipline = plan.subOwner[position]!
    const words = disciplineWordsOf(plan, discipline)
    const real = words.subDisciplines[plan.subReal[position]!]!
    const modifier = plan.subModifier[position]!
    const name =
      modifier < 0 ? real : `${domainWordsOf(plan, discipline).modifiers[modifier]!} ${real}`
    const parents = parentsOf(position)
    const disciplineIds: string[] = []
    for (let k = 0; k < parents.length; k++) disciplineIds.push(disciplineAt(parents[k]!).id)
    const record: FixtureSubDiscipline = Object.freeze({
      id,
      name,
      slug: withRepeat(subDisciplineSlugOf(keys, plan.subKey[position]!), plan.subUses[position]!),
      description: describeSubDiscipline(
        plan.subDescription[3 * position + 2]!,
        words.subjects[plan.subDescription[3 * position]!]!,
        words.subjects[plan.subDescription[3 * position + 1]!]!,
        name,
        words.name,
      ),
      discipline_ids: Object.freeze(disciplineIds),
    })
    subPlaces.set(record, position)
    return record
  }

  function parentsOf(position: number): number[] {
    return withOthers(plan.subOwner[position]!, plan.subOtherParents, position)
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
      disciplinesBySlug ??= groupPlaces(plan.disciplineKey, keys.disciplineSlugs.length)
      // The `uses`th record with a key is the one whose slug takes `-uses`: its places ascend.
      return disciplinesBySlug.placesOf(key)[split!.uses - 1]
    },
    findSubDiscipline: (slug) => {
      const split = splitRepeat(slug)
      if (split === undefined) return undefined
      subsBySlug ??= groupPlaces(plan.subKey, subDisciplineKeyCount(keys))
      for (const key of subDisciplineKeysOf(keys, split.base)) {
        const found = subsBySlug.placesOf(key)[split.uses - 1]
        if (found !== undefined) return found
      }
      return undefined
    },
    disciplinePlaceOf: (record) => disciplinePlaces.get(record),
    subDisciplinePlaceOf: (record) => subPlaces.get(record),
    disciplinesOf: (domain) => {
      const found: number[] = []
      for (let i = 0; i < counts.disciplines; i++) {
        if (
          i % counts.domains === domain ||
          plan.disciplineOtherDomains[2 * i] === domain ||
          plan.disciplineOtherDomains[2 * i + 1] === domain
        )
          found.push(i)
      }
      return found
    },
    subDisciplinesOf: (discipline) => {
      // Two other parents a sub-discipline, -1 for none.
      sharedInto ??= groupPlaces(plan.subOtherParents, counts.disciplines, 2)
      const found: number[] = []
      let own = plan.firstSub[discipline]!
      const ownEnd = plan.firstSub[discipline + 1]!
      // Its own, contiguous, and those shared into it, ascending: merged in dataset order.
      for (const shared of sharedInto.placesOf(discipline)) {
        while (own < ownEnd && own < shared) found.push(own++)
        found.push(shared)
      }
      while (own < ownEnd) found.push(own++)
      return found
    },
    parentsOf,
  }
}

/** `first`, then the other places (two slots a record, -1 for none) `others` holds for place `at`. */
function withOthers(first: number, others: Int32Array, at: number): number[] {
  const places = [first]
  for (let slot = 2 * at; slot < 2 * at + 2; slot++)
    if (others[slot]! >= 0) places.push(others[slot]!)
  return places
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
