import type { UpperPlan } from './plan.js'
import type { TopicShares } from './topics.js'
import type { FixtureDomain } from '../types.js'

/**
 * A generated dataset before any record below the domains is written: the plan of the levels above
 * the topics and the topics' shares among the sub-disciplines. All a dataset needs to
 * answer, every other record written on first use as ever.
 */
export interface UpperLevels {
  readonly plan: UpperPlan
  readonly shares: TopicShares
}

/** The plan's and the shares' typed arrays, by name, with the type each is read back as. */
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

const SHARE_ARRAYS = {
  firstTopic: Uint32Array,
  firstName: Uint32Array,
} as const satisfies Record<keyof TopicShares, unknown>

/** `upper` as one line of JSON, for the dataset `key` names (its seed and counts). */
export function toSnapshotText(key: string, upper: UpperLevels): string {
  const { plan, shares } = upper
  return JSON.stringify({
    key,
    counts: plan.counts,
    domains: plan.domains,
    plan: Object.fromEntries(
      Object.keys(PLAN_ARRAYS).map((name) => [name, [...plan[name as keyof typeof PLAN_ARRAYS]]]),
    ),
    shares: Object.fromEntries(
      Object.keys(SHARE_ARRAYS).map((name) => [
        name,
        [...shares[name as keyof typeof SHARE_ARRAYS]],
      ]),
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
  const shares = Object.fromEntries(
    Object.entries(SHARE_ARRAYS).map(([name, type]) => [name, type.from(snapshot.shares[name]!)]),
  ) as unknown as TopicShares
  return {
    plan: {
      ...arrays,
      counts: snapshot.counts,
      domains: snapshot.domains.map((record) => Object.freeze(record)),
    },
    shares,
  }
}

/** The JSON of {@link toSnapshotText}, parsed. */
interface Snapshot {
  readonly key: string
  readonly counts: UpperPlan['counts']
  readonly domains: FixtureDomain[]
  readonly plan: Readonly<Record<string, readonly number[]>>
  readonly shares: Readonly<Record<string, readonly number[]>>
}
