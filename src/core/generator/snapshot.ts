import type { DisciplineDraft, SubDisciplineDraft } from './levels.js'
import { topicNamesOf, type TopicNames } from './names.js'
import { groupSiblings, type TopicWalk } from './topics.js'
import type { Fixture, FixtureDiscipline, FixtureDomain, FixtureSubDiscipline } from '../types.js'
import { DOMAINS } from './vocabulary/index.js'

/**
 * A generated dataset before its topics: the records above them, the drafts the topics are named
 * and drawn from, and the walk of the seeded stream that places them. All a dataset needs to
 * answer, its topics built on first use as ever.
 */
export interface UpperLevels {
  readonly head: Omit<Fixture, 'topics'>
  readonly disciplines: readonly DisciplineDraft[]
  readonly subDisciplines: readonly SubDisciplineDraft[]
  readonly walk: TopicWalk
}

/**
 * `upper` as one line of JSON, for the dataset `key` names (its seed and counts). A discipline's
 * draft is kept as the places of its words in the vocabulary and its topic names' two draws; a
 * sub-discipline's as its discipline's place; the walk as its arrays.
 */
export function toSnapshotText(key: string, upper: UpperLevels): string {
  const { head, disciplines, subDisciplines, walk } = upper
  const place = new Map(disciplines.map((draft, index) => [draft, index]))
  return JSON.stringify({
    key,
    head,
    drafts: disciplines.map((draft) => {
      const vocabulary = DOMAINS.indexOf(draft.domainWords)
      return [
        draft.domainIndex,
        vocabulary,
        draft.domainWords.disciplines.indexOf(draft.words),
        draft.topicNames.stride,
        draft.topicNames.offset,
      ]
    }),
    parents: subDisciplines.map((draft) => place.get(draft.discipline)),
    counts: [...walk.counts],
    firstTopic: [...walk.firstTopic],
    firstName: [...walk.firstName],
    streams: [...walk.streams],
  })
}

/** What {@link toSnapshotText} wrote, frozen as generating makes it; `undefined` for another dataset's. */
export function fromSnapshotText(key: string, text: string): UpperLevels | undefined {
  const snapshot = JSON.parse(text) as Snapshot
  if (snapshot.key !== key) return undefined
  const head = snapshot.head
  const domains = head.domains.map((record) => Object.freeze(record))
  const records = head.disciplines.map((record) => {
    Object.freeze(record.domain_ids)
    return Object.freeze(record)
  })
  const subRecords = head.sub_disciplines.map((record) => {
    Object.freeze(record.discipline_ids)
    return Object.freeze(record)
  })
  const disciplines = snapshot.drafts.map(
    ([domainIndex, vocabulary, words, stride, offset], index): DisciplineDraft => {
      const domainWords = DOMAINS[vocabulary]!
      const disciplineWords = domainWords.disciplines[words]!
      let topicNames: TopicNames | undefined
      return {
        record: records[index]!,
        domainIndex,
        domainWords,
        words: disciplineWords,
        // Made when a topic is first built, not to answer a discipline: about 0.1 ms each, cold.
        get topicNames() {
          return (topicNames ??= topicNamesOf(
            domainWords.style,
            disciplineWords.subjects,
            stride,
            offset,
          ))
        },
      }
    },
  )
  const subDisciplines = snapshot.parents.map((parent, index): SubDisciplineDraft => ({
    record: subRecords[index]!,
    discipline: disciplines[parent]!,
  }))
  return {
    head: Object.freeze({
      format: head.format,
      seed: head.seed,
      domains: Object.freeze(domains),
      disciplines: Object.freeze(records),
      sub_disciplines: Object.freeze(subRecords),
    }),
    disciplines,
    subDisciplines,
    walk: {
      counts: Uint32Array.from(snapshot.counts),
      firstTopic: Uint32Array.from(snapshot.firstTopic),
      firstName: Uint32Array.from(snapshot.firstName),
      streams: Int32Array.from(snapshot.streams),
      siblingsOf: groupSiblings(subDisciplines),
    },
  }
}

/** The JSON of {@link toSnapshotText}, parsed. */
interface Snapshot {
  readonly key: string
  readonly head: {
    readonly format: Fixture['format']
    readonly seed: number | null
    readonly domains: FixtureDomain[]
    readonly disciplines: FixtureDiscipline[]
    readonly sub_disciplines: FixtureSubDiscipline[]
  }
  readonly drafts: readonly [number, number, number, number, number][]
  readonly parents: readonly number[]
  readonly counts: readonly number[]
  readonly firstTopic: readonly number[]
  readonly firstName: readonly number[]
  readonly streams: readonly number[]
}
