import fc from 'fast-check'
import { expect, it } from 'vitest'
import { toSlug } from '../../src/core/slug.js'

/** The rule as first written: every name through Unicode normalization, then three replacements. */
function referenceSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug === '' ? 'untitled' : slug
}

it('slugs ASCII names without Unicode work, exactly as the normalizing rule does', () => {
  expect(toSlug('Boundary-Layer Meteorology')).toBe('boundary-layer-meteorology')
  expect(toSlug('Études Médiévales')).toBe('etudes-medievales')
  expect(toSlug('  ')).toBe('untitled')
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })),
      (name) => {
        expect(toSlug(name)).toBe(referenceSlug(name))
      },
    ),
    { numRuns: 2_000 },
  )
})
