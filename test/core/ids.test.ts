import fc from 'fast-check'
import { expect, it } from 'vitest'
import { isLowercaseUuid, isUuid } from '../../src/core/ids.js'

/** What `isUuid` says, as the pattern it replaced said it. */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** What `isLowercaseUuid` says: the same, case-sensitive. */
const LOWERCASE_UUID_PATTERN = new RegExp(UUID_PATTERN.source)
const UUID = '3c88596c-5e88-45db-8116-017eb4733ac5'

it('says what the UUID pattern says of edge cases', () => {
  const cases = [
    UUID,
    UUID.toUpperCase(),
    '3C88596c-5E88-45db-8116-017EB4733ac5',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '',
    UUID.slice(1),
    `${UUID}0`,
    `${UUID}\n`,
    `\n${UUID.slice(1)}`,
    UUID.replace('-', '0'),
    UUID.replaceAll('-', '_'),
    `${UUID.slice(0, 8)}${UUID.slice(9)}-`,
    UUID.replace('3', 'g'),
    UUID.replace('3', 'G'),
    UUID.replace('3', ' '),
    // Characters that fold to ASCII letters in some case mappings (long s, Kelvin sign).
    UUID.replace('3', '\u017f'),
    UUID.replace('3', '\u212a'),
    UUID.replace('3', '\uff21'),
    UUID.replace('3', '\u0663'),
    UUID.replace('3', '\ud83d'),
    UUID.slice(0, 34) + '\ud83d\ude00',
    UUID.replace('3', '\u0133'),
    UUID.replace('c', '\u0143'),
  ]
  for (const text of cases) {
    expect([text, isUuid(text)]).toEqual([text, UUID_PATTERN.test(text)])
    expect([text, isLowercaseUuid(text)]).toEqual([text, LOWERCASE_UUID_PATTERN.test(text)])
  }
})

it('says what the UUID pattern says of any string of UUID characters and others', () => {
  const unit = fc.constantFrom(...'0123456789abcdefABCDEF-gG_ \u017f\u212a\ud83d')
  const text = fc.oneof(
    fc.string({ unit, minLength: 34, maxLength: 38 }),
    fc
      .constantFrom(...UUID)
      .chain((char) => fc.nat(35).map((at) => UUID.slice(0, at) + char + UUID.slice(at + 1))),
  )
  fc.assert(
    fc.property(
      text,
      (value) =>
        isUuid(value) === UUID_PATTERN.test(value) &&
        isLowercaseUuid(value) === LOWERCASE_UUID_PATTERN.test(value),
    ),
  )
})
