// The topic plan builds one sub-discipline's topics without building those before them: the same
// bytes as a full build, also where names repeat (slugs `-2`, `-3`...) and topics are shared.
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { sha256 } from '../helpers/digest.js'

/** Two disciplines, 40,000 topics: each discipline runs through its names several times over. */
const CROWDED = { domains: 1, disciplines: 2, subDisciplines: 9, topics: 40_000 }
const PINNED: [number, string][] = [
  [42, '61b451a70cf5a5eddd201dfe3d6f9075b7f4de8d504dfcfa7054567a493bc89f'],
  [9, 'c57ae48dc1474ee85079df1fc0482b113017b416437ecb8edffe0dcddbbd9f85'],
]

/** A dataset built anew: other sizes in between push the seed's out of the few shared ones. */
function fresh(seed: number) {
  for (let k = 0; k < 4; k++) createTaxonomy({ seed, size: { topics: 10 + k } })
  return createTaxonomy({ seed, size: CROWDED })
}

it.each(PINNED)(
  'pins the bytes of seed %i with repeated names and shared topics',
  (seed, digest) => {
    const taxonomy = fresh(seed)
    expect(taxonomy.topics.filter((topic) => /-\d+$/.test(topic.slug)).length).toBeGreaterThan(500)
    expect(taxonomy.topics.some((topic) => topic.sub_discipline_ids.length > 1)).toBe(true)
    expect(sha256(toFixtureJson(taxonomy))).toBe(digest)
  },
)

it.each(PINNED)(
  'builds the same bytes of seed %i when sub-disciplines are asked for last first',
  (seed, digest) => {
    const taxonomy = fresh(seed)
    const lists = taxonomy.subDisciplines.toReversed().map((sub) => taxonomy.topicsOf(sub))
    expect(lists.every((list) => list.length > 0)).toBe(true)
    expect(sha256(toFixtureJson(taxonomy))).toBe(digest)
  },
)

/** Disciplines that repeat their names, and so their subjects, each running through its names. */
const SHARING = { domains: 2, disciplines: 40, subDisciplines: 400, topics: 64_000 }

// A first lookup counts a topic's earlier slugs in arithmetic, per discipline sharing its subject,
// instead of walking every topic's name key: the same suffixes as the walk of a full build.
it("builds one sub-discipline's topics alone, first thing, with the suffixes of a full build", () => {
  const full = createTaxonomy({ seed: 9, size: SHARING })
  const whole = full.subDisciplines.map((sub) => JSON.stringify(full.topicsOf(sub)))
  const suffixed = full.topics.filter((topic) => /-\d+$/.test(topic.slug)).length
  expect(suffixed).toBeGreaterThan(10_000)
  const picked = full.subDisciplines.flatMap((_, index) => (index % 23 === 0 ? [index] : []))
  for (const index of [...picked, full.subDisciplines.length - 1]) {
    for (let k = 0; k < 4; k++) createTaxonomy({ seed: 9, size: { topics: 10 + k } })
    const alone = createTaxonomy({ seed: 9, size: SHARING })
    expect(alone).not.toBe(full)
    expect(JSON.stringify(alone.topicsOf(alone.subDisciplines[index]!))).toBe(whole[index])
  }
})
