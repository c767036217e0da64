import { describeDiscipline, describeSubDiscipline } from './descriptions.js'
import type { UpperPlan } from './plan.js'
import { createSlugIndex, type SlugIndex } from './slug-index.js'
import {
  disciplineKeyOf,
  slugKeys,
  splitRepeat,
  subDisciplineKeyCount,
  subDisciplineKeysOf,
  subDisciplineSlugOf,
} from './slug-keys.js'
import type { IdsByPosition } from '../ids.js'
import type { DeferredLevels } from '../store.js'
import type { FixtureDiscipline, FixtureSubDiscipline } from '../types.js'
import { DOMAINS, type DisciplineWords, type DomainWords } from './vocabulary/index.js'

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
  const { counts, domains, domainVocabulary, disciplineWords } = plan
  const disciplines: (FixtureDiscipline | undefined)[] = new Array(counts.disciplines)
  const subs: (FixtureSubDiscipline | undefined)[] = new Array(counts.subDisciplines)
  // The place of each record written, by the record, one map per level: a discipline passed
  // where a sub-discipline is expected is no record of that level.
  const disciplinePlaces = new Map<object, number>()
  const subPlaces = new Map<object, number>()
  let disciplineIndex: SlugIndex | undefined
  let subIndex: SlugIndex | undefined
  let allDisciplines: readonly FixtureDiscipline[] | undefined
  let allSubs: readonly FixtureSubDiscipline[] | undefined
  // Each discipline's sub-disciplines drawn for another discipline, by place: made on first use.
  let sharedInto: { readonly start: Uint32Array; readonly subs: Uint32Array } | undefined

  const domainWordsOf = (discipline: number): DomainWords =>
    DOMAINS[domainVocabulary[discipline % counts.domains]!]!
  const wordsOf = (discipline: number): DisciplineWords =>
    domainWordsOf(discipline).disciplines[disciplineWords[discipline]!]!

  function disciplineAt(position: number): FixtureDiscipline {
    return (disciplines[position] ??= writeDiscipline(position, ids.disciplines.at(position)))
  }

  function writeDiscipline(position: number, id: string): FixtureDiscipline {
    const words = wordsOf(position)
    const domainIds = [domains[position % counts.domains]!.id]
    for (let k = 0; k < 2; k++) {
      const other = plan.disciplineOtherDomains[2 * position + k]!
      if (other >= 0) domainIds.push(domains[other]!.id)
    }
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
    const words = wordsOf(discipline)
    const real = words.subDisciplines[plan.subReal[position]!]!
    const modifier = plan.subModifier[position]!
    const name = modifier < 0 ? real : `${domainWordsOf(discipline).modifiers[modifier]!} ${real}`
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
    const parents = [plan.subOwner[position]!]
    for (let k = 0; k < 2; k++) {
      const other = plan.subOtherParents[2 * position + k]!
      if (other >= 0) parents.push(other)
    }
    return parents
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
      disciplineIndex ??= createSlugIndex(plan.disciplineKey, keys.disciplineSlugs.length)
      return disciplineIndex.find(key, split!.uses)
    },
    findSubDiscipline: (slug) => {
      const split = splitRepeat(slug)
      if (split === undefined) return undefined
      subIndex ??= createSlugIndex(plan.subKey, subDisciplineKeyCount(keys))
      for (const key of subDisciplineKeysOf(keys, split.base)) {
        const found = subIndex.find(key, split.uses)
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
      sharedInto ??= indexSharedSubs(plan)
      const found: number[] = []
      let own = plan.firstSub[discipline]!
      const ownEnd = plan.firstSub[discipline + 1]!
      // Its own, contiguous, and those shared into it, ascending: merged in dataset order.
      for (let k = sharedInto.start[discipline]!; k < sharedInto.start[discipline + 1]!; k++) {
        const shared = sharedInto.subs[k]!
        while (own < ownEnd && own < shared) found.push(own++)
        found.push(shared)
      }
      while (own < ownEnd) found.push(own++)
      return found
    },
    parentsOf,
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

/** `slug` as the `uses`th repeat of itself gives it: `-2`, `-3`... after the first. */
function withRepeat(slug: string, uses: number): string {
  return uses === 1 ? slug : `${slug}-${uses}`
}

/**
 * The sub-disciplines each discipline holds as a second or third parent, ascending: a counting
 * sort of the plan's extra parents (two places a sub-discipline), in two passes over them.
 */
function indexSharedSubs(plan: UpperPlan): { start: Uint32Array; subs: Uint32Array } {
  const extras = plan.subOtherParents
  const start = new Uint32Array(plan.counts.disciplines + 1)
  for (let k = 0; k < extras.length; k++) if (extras[k]! >= 0) start[extras[k]! + 1]!++
  for (let i = 0; i < plan.counts.disciplines; i++) start[i + 1]! += start[i]!
  const filled = start.slice(0, plan.counts.disciplines)
  const subs = new Uint32Array(start[plan.counts.disciplines]!)
  for (let k = 0; k < extras.length; k++) {
    const discipline = extras[k]!
    if (discipline >= 0) subs[filled[discipline]!++] = k >> 1
  }
  return { start, subs }
}
