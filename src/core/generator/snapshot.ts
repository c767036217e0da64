import type { UpperPlan } from './plan.js'
import type { TopicWalk } from './topics.js'
import type { FixtureDomain } from '../types.js'

/**
 * A generated dataset before any record below the domains is written: the plan of the levels above
 * the topics and the walk of the seeded stream that places the topics. All a dataset needs to
 * answer, every other record written on first use as ever.
 */
export interface UpperLevels {
  readonly plan: UpperPlan
  readonly walk: TopicWalk
}

/** The plan's and the walk's typed arrays, by name, with the type each is read back as. */
const PLAN_ARRAYS = {
  domainVocabulary: Uint8Array,
  disciplineWords: Uint16Array,
  disciplineOtherDomains: Int32Array,
  disciplineTemplate: Uint8Array,
  disciplineKey: Uint16Array,
  disciplineUses: Uint32Array,
  topicStride: Uint32Array,
  topicOffset: Uint32Array,
  firstSub: Uint32Array,
  subOwner: Uint32Array,
  subReal: Uint16Array,
  subModifier: Int16Array,
  subOtherParents: Int32Array,
  subDescription: Uint16Array,
  subKey: Uint32Array,
  subUses: Uint32Array,
} as const satisfies Partial<Record<keyof UpperPlan, unknown>>

const WALK_ARRAYS = {
  counts: Uint32Array,
  firstTopic: Uint32Array,
  firstName: Uint32Array,
  streams: Int32Array,
} as const satisfies Record<keyof TopicWalk, unknown>

/** `upper` as one line of JSON, for the dataset `key` names (its seed and counts). */
export function toSnapshotText(key: string, upper: UpperLevels): string {
  const { plan, walk } = upper
  return JSON.stringify({
    key,
    counts: plan.counts,
    domains: plan.domains,
    plan: Object.fromEntries(
      Object.keys(PLAN_ARRAYS).map((name) => [name, [...plan[name as keyof typeof PLAN_ARRAYS]]]),
    ),
    walk: Object.fromEntries(
      Object.keys(WALK_ARRAYS).map((name) => [name, [...walk[name as keyof typeof WALK_ARRAYS]]]),
    ),
  })
}

/** What {@link toSnapshotText} wrote, frozen as generating makes it; `undefined` for another dataset's. */
export function fromSnapshotText(key: string, text: string): UpperLevels | undefined {
  const snapshot = JSON.parse(text) as Snapshot
  if (snapshot.key !== key) return undefined
  const arrays = Object.fromEntries(
    Object.entries(PLAN_ARRAYS).map(([name, type]) => [name, type.from(snapshot.plan[name]!)]),
  ) as unknown as Pick<UpperPlan, keyof typeof PLAN_ARRAYS>
  const walk = Object.fromEntries(
    Object.entries(WALK_ARRAYS).map(([name, type]) => [name, type.from(snapshot.walk[name]!)]),
  ) as unknown as TopicWalk
  return {
    plan: {
      ...arrays,
      counts: snapshot.counts,
      domains: snapshot.domains.map((record) => Object.freeze(record)),
    },
    walk,
  }
}

/** The JSON of {@link toSnapshotText}, parsed. */
interface Snapshot {
  readonly key: string
  readonly counts: UpperPlan['counts']
  readonly domains: FixtureDomain[]
  readonly plan: Readonly<Record<string, readonly number[]>>
  readonly walk: Readonly<Record<string, readonly number[]>>
}
