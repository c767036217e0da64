import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { createOverlay } from '../../src/core/overlay.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { PRESET_NAMES, presetPatch } from '../../src/core/presets.js'
import { toDisciplineRecord, toSubDisciplineRecord } from '../../src/core/records.js'
import { SLUG_PATTERN } from '../../src/core/slug.js'

const bases = [createTaxonomy({ seed: 42, size: 'small' }), createTaxonomy({ seed: 7 })]

/** The slugs each preset adds, as the docs list them. */
const SLUGS = {
  'empty-children': {
    disciplines: ['empty-discipline'],
    sub_disciplines: ['empty-sub-discipline'],
  },
  'many-parents': { disciplines: ['everywhere-studies'], sub_disciplines: ['crossroads'] },
  'long-names': {
    disciplines: [`${'long-discipline-'.repeat(13).slice(0, 199)}x`],
    sub_disciplines: [`${'long-sub-discipline-'.repeat(10).slice(0, 199)}x`],
  },
  'unicode-names': {
    disciplines: ['unicode-rtl', 'unicode-combining', 'unicode-emoji', 'unicode-cjk'],
    sub_disciplines: ['unicode-mixed'],
  },
  'huge-lists': {
    disciplines: ['huge-discipline'],
    sub_disciplines: ['huge-sub-discipline', 'huge-sub-discipline-5000'],
  },
} as const

it.each(PRESET_NAMES)(
  '%s: valid, the same every time, adds its slugs, as an overlay too',
  (name) => {
    for (const base of bases) {
      const patch = presetPatch(base, name)
      expect(JSON.stringify(presetPatch(base, name))).toBe(JSON.stringify(patch))
      const full = patchTaxonomy(base, patch)
      const overlay = createOverlay(base, patch)
      for (const slug of SLUGS[name].disciplines) {
        expect(slug).toMatch(SLUG_PATTERN)
        const record = full.findDiscipline(slug)!
        expect(JSON.stringify(toDisciplineRecord(overlay, overlay.findDiscipline(slug)!))).toBe(
          JSON.stringify(toDisciplineRecord(full, record)),
        )
      }
      for (const slug of SLUGS[name].sub_disciplines) {
        expect(slug).toMatch(SLUG_PATTERN)
        const record = full.findSubDiscipline(slug)!
        expect(
          JSON.stringify(toSubDisciplineRecord(overlay, overlay.findSubDiscipline(slug)!)),
        ).toBe(JSON.stringify(toSubDisciplineRecord(full, record)))
      }
    }
  },
)

it('gives each preset the state it names', () => {
  const [base] = bases as [(typeof bases)[0]]
  const empty = patchTaxonomy(base, presetPatch(base, 'empty-children'))
  expect(
    toDisciplineRecord(empty, empty.findDiscipline('empty-discipline')!).sub_disciplines_count,
  ).toBe(0)
  expect(
    toSubDisciplineRecord(empty, empty.findSubDiscipline('empty-sub-discipline')!).topics_count,
  ).toBe(0)
  const many = patchTaxonomy(base, presetPatch(base, 'many-parents'))
  expect(many.findDiscipline('everywhere-studies')!.domain_ids).toHaveLength(base.domains.length)
  expect(many.findSubDiscipline('crossroads')!.discipline_ids).toHaveLength(10)
  const long = patchTaxonomy(base, presetPatch(base, 'long-names'))
  const longest = long.findDiscipline(SLUGS['long-names'].disciplines[0])!
  expect([longest.name.length, longest.slug.length]).toEqual([500, 200])
  const unicode = patchTaxonomy(base, presetPatch(base, 'unicode-names'))
  expect(unicode.findDiscipline('unicode-rtl')!.name).toBe('دراسات المعرفة')
  expect(unicode.findDiscipline('unicode-emoji')!.name).toMatch(/\p{Extended_Pictographic}/u)
  const huge = createOverlay(base, presetPatch(base, 'huge-lists'))
  expect(
    toDisciplineRecord(huge, huge.findDiscipline('huge-discipline')!).sub_disciplines_count,
  ).toBe(5_000)
  expect(
    toSubDisciplineRecord(huge, huge.findSubDiscipline('huge-sub-discipline')!).topics_count,
  ).toBe(50_000)
})

it('refuses data that is no taxonomy, naming the argument', () => {
  const wanted = '`taxonomy` must be a taxonomy from createTaxonomy() or loadTaxonomy(); received'
  expect(() => presetPatch(undefined as never, 'long-names')).toThrow(
    expect.objectContaining({ option: 'taxonomy', message: `${wanted} undefined (undefined)` }),
  )
  expect(() => presetPatch(bases[0]!.toFixture() as never, 'long-names')).toThrow(
    `${wanted} a fixture object; load it with loadTaxonomy() first`,
  )
})

it('refuses a name that is no preset, a key of every object included', () => {
  for (const name of ['nope', 'constructor', 'toString'])
    expect(() => presetPatch(bases[0]!, name as never)).toThrow(
      expect.objectContaining({
        option: 'preset',
        message: `\`preset\` must be one of ${PRESET_NAMES.join(', ')}; received ${JSON.stringify(name)} (string)`,
      }),
    )
})
