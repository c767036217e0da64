import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import type { Taxonomy } from '../../src/core/store.js'

/** Checks that every link agrees both ways and every count equals its child array's length. */
function checkInvariants(taxonomy: Taxonomy): void {
  for (const discipline of taxonomy.disciplines) {
    for (const domain of taxonomy.domainsOf(discipline)) {
      expect(taxonomy.disciplinesOf(domain)).toContain(discipline)
    }
    const record = toDisciplineRecord(taxonomy, discipline)
    expect(record.sub_disciplines_count).toBe(record.sub_disciplines.length)
    expect(record.sub_disciplines_count).toBeGreaterThan(0)
    for (const summary of record.sub_disciplines) {
      const sub = taxonomy.findSubDiscipline(summary.slug)!
      expect(sub.discipline_ids).toContain(discipline.id)
      expect(summary.topics_count).toBe(taxonomy.topicsOf(sub).length)
    }
  }
  for (const sub of taxonomy.subDisciplines) {
    for (const parent of taxonomy.parentDisciplinesOf(sub)) {
      expect(taxonomy.subDisciplinesOf(parent)).toContain(sub)
    }
    const record = toSubDisciplineRecord(taxonomy, sub)
    expect(record.topics_count).toBe(record.topics.length)
    for (const topic of taxonomy.topicsOf(sub)) expect(topic.sub_discipline_ids).toContain(sub.id)
  }
  for (const topic of taxonomy.topics) {
    for (const parent of taxonomy.parentSubDisciplinesOf(topic)) {
      expect(taxonomy.topicsOf(parent)).toContain(topic)
    }
  }
  for (const level of [
    taxonomy.domains,
    taxonomy.disciplines,
    taxonomy.subDisciplines,
    taxonomy.topics,
  ]) {
    expect(new Set(level.map((r) => r.id)).size).toBe(level.length)
    expect(new Set(level.map((r) => r.slug)).size).toBe(level.length)
  }
}

it('keeps links, counts and uniqueness for any seed at the small size', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (seed) => {
      checkInvariants(createTaxonomy({ seed, size: 'small' }))
    }),
    { numRuns: 40 },
  )
})

it('keeps links, counts and uniqueness for any explicit counts', () => {
  const counts = fc
    .record({
      domains: fc.integer({ min: 1, max: 12 }),
      disciplines: fc.integer({ min: 1, max: 90 }),
      extraSubDisciplines: fc.integer({ min: 0, max: 200 }),
      topics: fc.integer({ min: 0, max: 1_500 }),
    })
    .map(({ extraSubDisciplines, ...rest }) => ({
      ...rest,
      subDisciplines: rest.disciplines + extraSubDisciplines,
    }))
  fc.assert(
    fc.property(fc.nat(), counts, (seed, size) => {
      const taxonomy = createTaxonomy({ seed, size })
      expect(taxonomy.topics).toHaveLength(size.topics)
      checkInvariants(taxonomy)
    }),
    { numRuns: 40 },
  )
})

it('keeps links, counts and uniqueness at the medium size for several seeds', () => {
  for (const seed of [0, 42, 1234]) checkInvariants(createTaxonomy({ seed, size: 'medium' }))
})
