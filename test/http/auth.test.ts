import fc from 'fast-check'
import { expect, it } from 'vitest'
import { hasLowerCaseAt } from '../../src/http/ascii-case.js'
import { createKeyCheck, equalInConstantTime, isAuthorized } from '../../src/http/auth.js'

/**
 * The rule of §5 as first written (a scan, then a comparison per key), on the first of repeated
 * fields (the text before the first `, `): the one-pass check must agree with it.
 */
function reference(joined: string | null | undefined, keys: readonly string[] | 'any'): boolean {
  if (!joined) return false
  const header = joined.split(', ')[0]!
  let at = skip(header, 0)
  if (!hasLowerCaseAt(header, at, 'bearer')) return false
  const afterScheme = at + 'bearer'.length
  const start = skip(header, afterScheme)
  let end = start
  while (end < header.length && !/\s/.test(header[end]!)) end++
  at = skip(header, end)
  if (start === afterScheme || end === start || at !== header.length) return false
  if (keys === 'any') return true
  let matched = 0
  for (const accepted of keys) matched |= equalInConstantTime(header, accepted, start, end) ? 1 : 0
  return matched === 1
}

function skip(text: string, from: number): number {
  let at = from
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++
  return at
}

const piece = fc.constantFrom(
  'Bearer',
  'bearer',
  'BEARER',
  'Basic',
  ' ',
  '\t',
  '  ',
  'k1',
  'k2',
  'key',
  'taxonomy-mock-key',
  '\u00a0',
  '\u2028',
  '\n',
  'é',
  '😀',
  'x',
  '',
  ',',
  ', ',
  'k,1',
)
const keySet = fc.oneof(
  fc.constant<'any'>('any'),
  fc.array(
    fc.constantFrom('k1', 'k2', 'key', 'taxonomy-mock-key', 'é', 'k😀', 'k1k1', 'k,1', 'k1,'),
    { minLength: 1, maxLength: 3 },
  ),
)

it('accepts exactly the headers the scan-then-compare rule accepts', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 6 }), keySet, (pieces, keys) => {
      const header = pieces.join('')
      expect(createKeyCheck(keys)(header)).toBe(reference(header, keys))
    }),
    { numRuns: 20_000 },
  )
  fc.assert(
    fc.property(fc.string(), keySet, (header, keys) => {
      expect(isAuthorized(header, keys)).toBe(reference(header, keys))
      expect(isAuthorized(`Bearer ${header}`, keys)).toBe(reference(`Bearer ${header}`, keys))
    }),
  )
})

it('agrees with the rule over a run of headers, repeats included, when one check remembers those it accepted', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(piece, { maxLength: 6 }), { maxLength: 40 }),
      keySet,
      (headers, keys) => {
        const check = createKeyCheck(keys)
        for (const header of [...headers, ...headers].map((pieces) => pieces.join('')))
          expect(check(header)).toBe(reference(header, keys))
      },
    ),
    { numRuns: 2_000 },
  )
})

it('keeps its rule once it remembers as many accepted headers as it may', () => {
  const check = createKeyCheck(['k1', 'k2'])
  // 24 spellings of the two keys, more than the 16 it remembers, each asked twice.
  const accepted = ['Bearer', 'bearer', 'BEARER'].flatMap((scheme) =>
    ['k1', 'k2'].flatMap((key) => [
      `${scheme} ${key}`,
      `${scheme}  ${key}`,
      `${scheme}\t${key}`,
      ` ${scheme} ${key} `,
    ]),
  )
  for (const header of [...accepted, ...accepted]) expect(check(header), header).toBe(true)
  for (const header of [
    'Bearer k3',
    'Bearer k1k1',
    'Basic k1',
    'Bearer',
    'Bearer k1 k2',
    'bearer\u00a0k1',
  ])
    expect(check(header), header).toBe(false)
})

it('reads the scheme in any case and the key between spaces or tabs', () => {
  const check = createKeyCheck(['k1', 'k2'])
  expect(check('Bearer k1')).toBe(true)
  expect(check(' bEaReR \t k2 \t')).toBe(true)
  expect(check('Bearer k1 k2')).toBe(false)
  expect(check('Bearerk1')).toBe(false)
  expect(check('Bearer k')).toBe(false)
  expect(check('Bearer k10')).toBe(false)
  expect(check('Bearer ')).toBe(false)
  expect(check(undefined)).toBe(false)
  expect(createKeyCheck('any')('Bearer anything')).toBe(true)
  expect(createKeyCheck('any')('Basic anything')).toBe(false)
})

it('takes the first of repeated Authorization fields, which a web Headers joins with a comma and a space', () => {
  expect(isAuthorized('Bearer k1, Bearer wrong', ['k1'])).toBe(true)
  expect(isAuthorized('Bearer wrong, Bearer k1', ['k1'])).toBe(false)
  expect(isAuthorized(', Bearer k1', ['k1'])).toBe(false)
  // A key may hold commas; only a comma and a space part fields.
  expect(isAuthorized('Bearer k,1', ['k,1'])).toBe(true)
  expect(isAuthorized('Bearer k1,', ['k1,'])).toBe(true)
  expect(isAuthorized('Bearer k1,, Bearer other', ['k1,'])).toBe(true)
})
