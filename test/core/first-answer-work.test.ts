// A first answer writes and builds only the records it shows (and the parents their links name),
// whatever the dataset's size: at the generator's largest counts (110,000 records above 5,000,000
// topics) as at `small`. Its draws are bounded the same way: a discipline's from streams of its
// own (src/core/generator/plan.ts), which is what keeps its CPU time flat (bench/README.md).
import { expect, it } from 'vitest'
import { countWrittenRecords, createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import type { Size } from '../../src/core/size.js'

const LARGEST = { domains: 1_000, disciplines: 10_000, subDisciplines: 100_000, topics: 5_000_000 }
const SIZES: [string, Size][] = [
  ['small', 'small'],
  ['large', 'large'],
  ['the largest counts', LARGEST],
]

/** A dataset built anew, nothing of it written yet: other sizes push the seed's out of the few shared. */
function fresh(size: Size) {
  for (let k = 0; k < 4; k++) createTaxonomy({ seed: 11, size: { topics: 10 + k } })
  return createTaxonomy({ seed: 11, size })
}

it.each(SIZES)('answers a first lookup at %s writing only what the answer names', (_, size) => {
  const whole = fresh(size)
  const discipline = whole.disciplines.at(-1)!.slug
  const sub = whole.subDisciplines.at(-1)!.slug

  const forDiscipline = fresh(size)
  const found = forDiscipline.findDiscipline(discipline)!
  const record = toDisciplineRecord(forDiscipline, found)
  const children = forDiscipline.subDisciplinesOf(found)
  // The discipline, its sub-disciplines, and the parents their `discipline_ids` name.
  const named = new Set([
    found.id,
    ...children.flatMap((child) => [child.id, ...child.discipline_ids]),
  ])
  const written = countWrittenRecords(forDiscipline)!
  expect(record.sub_disciplines.length).toBe(children.length)
  expect(written.disciplines + written.subDisciplines).toBeLessThanOrEqual(named.size)
  expect(written.topics).toBe(0)

  const forSub = fresh(size)
  const foundSub = forSub.findSubDiscipline(sub)!
  const subRecord = toSubDisciplineRecord(forSub, foundSub)
  const afterSub = countWrittenRecords(forSub)!
  // The sub-discipline and the siblings its topics' `sub_discipline_ids` name.
  const siblings = new Set(forSub.topicsOf(foundSub).flatMap((topic) => topic.sub_discipline_ids))
  expect(afterSub.subDisciplines).toBe(siblings.size)
  // Their parents, to give each its \`discipline_ids\`: at most three a sub-discipline.
  expect(afterSub.disciplines).toBeGreaterThanOrEqual(subRecord.disciplines.length)
  expect(afterSub.disciplines).toBeLessThanOrEqual(3 * siblings.size)
  expect(afterSub.topics).toBe(subRecord.topics.length)
})
