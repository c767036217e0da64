import { expect, it } from 'vitest'
import { toSlug } from '../../src/core/slug.js'
import {
  slugKeys,
  subDisciplineKey,
  subDisciplineKeysOf,
  subDisciplineSlugOf,
} from '../../src/core/generator/slug-keys.js'
import { ASPECTS, CONTEXTS, DOMAINS } from '../../src/core/generator/vocabulary/index.js'

const disciplines = DOMAINS.flatMap((domain) => domain.disciplines)

it('lists each domain, discipline and sub-discipline name once', () => {
  const names = [
    ...DOMAINS.map((d) => d.name),
    ...disciplines.map((d) => d.name),
    ...disciplines.flatMap((d) => d.subDisciplines),
  ]
  expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([])
})

it('lists each topic subject once across all disciplines, so name keys are unique', () => {
  const subjects = disciplines.flatMap((d) => d.subjects)
  expect(subjects.filter((s, i) => subjects.indexOf(s) !== i)).toEqual([])
})

it('never makes one slug from two different aspect, subject and context choices', () => {
  // The generator checks topic-slug uniqueness on name keys, which is sound only if this holds.
  const seen = new Set<string>()
  const endingInDigits: string[] = []
  let count = 0
  for (const discipline of disciplines) {
    for (const [aspect] of ASPECTS) {
      for (const subject of discipline.subjects) {
        const base = toSlug(aspect.replace('{s}', subject))
        for (const context of ['', ...CONTEXTS]) {
          const slug = context === '' ? base : `${base}-${toSlug(context)}`
          seen.add(slug)
          count++
          if (/-\d+$/.test(slug)) endingInDigits.push(slug)
        }
      }
    }
  }
  expect(seen.size).toBe(count)
  // A repeated name gets a numeric suffix; no natural slug may look like one.
  expect(endingInDigits).toEqual([])
})

it('gives each discipline six real sub-disciplines and twelve subjects', () => {
  for (const discipline of disciplines) {
    expect(discipline.subDisciplines, discipline.name).toHaveLength(6)
    expect(discipline.subjects, discipline.name).toHaveLength(12)
  }
})

it("makes a modifier combination's slug from its two words' slugs, as from the whole name", () => {
  // The generator joins the slugs of "Computational" and "Cosmology" rather than slugging the name.
  const differing: string[] = []
  for (const domain of DOMAINS) {
    for (const modifier of domain.modifiers) {
      for (const discipline of domain.disciplines) {
        for (const sub of discipline.subDisciplines) {
          const whole = toSlug(`${modifier} ${sub}`)
          if (`${toSlug(modifier)}-${toSlug(sub)}` !== whole) differing.push(whole)
        }
      }
    }
  }
  expect(differing).toEqual([])
})

it('gives every sub-discipline name one slug key, the key back from the slug, and no slug ending in a digit', () => {
  // The plan of the levels above the topics counts repeated slugs on these keys
  // (src/core/generator/slug-keys.ts), and finds a slug's records by them: sound only if two keys
  // never make one slug, and a slug's key is found again from it.
  const keys = slugKeys()
  const keyOfSlug = new Map<string, number>()
  const clashes: string[] = []
  DOMAINS.forEach((domain, v) => {
    domain.disciplines.forEach((words, w) => {
      const flat = keys.wordStart[v]! + w
      expect(keys.disciplineSlugs[keys.disciplineKey[flat]!]).toBe(toSlug(words.name))
      words.subDisciplines.forEach((real, r) => {
        const realKey = keys.realKey[keys.realStart[flat]! + r]!
        for (let m = -1; m < domain.modifiers.length; m++) {
          const modifier = m < 0 ? -1 : keys.modifierKey[keys.modifierStart[v]! + m]!
          const key = subDisciplineKey(keys, realKey, modifier)
          const slug = toSlug(m < 0 ? real : `${domain.modifiers[m]!} ${real}`)
          expect(subDisciplineSlugOf(keys, key)).toBe(slug)
          expect(subDisciplineKeysOf(keys, slug)).toContain(key)
          if ((keyOfSlug.get(slug) ?? key) !== key) clashes.push(slug)
          keyOfSlug.set(slug, key)
        }
      })
    })
  })
  expect(clashes).toEqual([])
  const slugs = [...keys.disciplineSlugs, ...keys.realSlugs, ...keys.modifierSlugs]
  expect(slugs.filter((slug) => /\d$/.test(slug))).toEqual([])
})
