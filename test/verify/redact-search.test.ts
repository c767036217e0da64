import { expect, it } from 'vitest'
import { createRedactor } from '../../src/contract/redact.js'

const KEYS = [
  'taxonomy-mock-key',
  'leak/Key"with\\quote-0123456789abcdefghijklmnopqrstuvwxyzABCD',
  '%&\\%&\\%&',
  '&amp;&amp;',
]

/** A seeded generator, so a failure repeats. */
function createRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

/** One character of `form`, raw or in one of the encodings a body may carry it. */
function encodeCharacter(char: string, random: () => number): string {
  const hex = char.charCodeAt(0).toString(16).padStart(2, '0')
  const forms = [
    char,
    `\\u00${hex}`,
    `%${hex.toUpperCase()}`,
    `%25${hex}`,
    `&#x00${hex};`,
    `&#X${hex.toUpperCase()}`,
    `&#${char.charCodeAt(0)};`,
    `&#${char.charCodeAt(0)}`,
  ]
  if (char === '"' || char === '\\' || char === '/') forms.push(`\\${char}`)
  return forms[Math.floor(random() * forms.length)]!
}

/** What starts an encoding, and characters of the keys. */
const NOISE = '\\%&ab"'

/** Text full of what starts an encoding, with the key (or most of it) in a mix of encodings. */
function noisyText(key: string, random: () => number, whole: boolean): string {
  const noise = () =>
    Array.from({ length: Math.floor(random() * 40) }, () =>
      encodeCharacter(NOISE[Math.floor(random() * NOISE.length)]!, random),
    ).join('')
  const shown = whole ? key : key.slice(0, key.length - 1 - Math.floor(random() * 3))
  const echoed = [...shown].map((char) => encodeCharacter(char, random)).join('')
  return `${noise()}${echoed}${noise()}${key.slice(1)}${noise()}`
}

it('finds the key exactly where the whole pattern does, in text full of encodings', () => {
  const random = createRandom(7)
  let held = 0
  for (const key of KEYS) {
    const redactor = createRedactor(key)
    for (let round = 0; round < 400; round++) {
      const text = noisyText(key, random, round % 2 === 0)
      // The pattern replaces every match: text it leaves alone holds no form of the key.
      const expected = redactor.redact(text) !== text
      expect(redactor.holds(text), JSON.stringify({ key, text })).toBe(expected)
      if (expected) held++
    }
  }
  // Both answers were met, many times.
  expect(held).toBeGreaterThan(400)
  expect(held).toBeLessThan(1_500)
})

// A recording keeps strings parsed from the answers, and is not searched again: whatever holds the
// key once its JSON escapes are read (`\u00257e` is `%7e`) must hold it in the body's text already.
it('finds the key in a JSON string body wherever it is in the string the body parses to', () => {
  const random = createRandom(11)
  let held = 0
  for (const key of KEYS) {
    const redactor = createRedactor(key)
    for (let round = 0; round < 200; round++) {
      const text = noisyText(key, random, round % 2 === 0)
      // Each character as it is or as \u00XX; a quote and a backslash always escaped.
      const body = [...text]
        .map((char) =>
          char === '"' || char === '\\' || random() < 0.5
            ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
            : char,
        )
        .join('')
      expect(JSON.parse(`"${body}"`)).toBe(text)
      if (!redactor.holds(text)) continue
      held++
      expect(redactor.holds(`{"name":"${body}"}`), JSON.stringify({ key, body })).toBe(true)
    }
  }
  expect(held).toBeGreaterThan(200)
})

it('finds a form as it is, and an encoded one long past the first characters of the text', () => {
  const key = 'taxonomy-mock-key'
  const redactor = createRedactor(key)
  const filler = 'x'.repeat(100_000)
  expect(redactor.holds(`${filler}${key}${filler}`)).toBe(true)
  expect(redactor.holds(`${filler}${btoa(key.slice(0, 15))}${filler}`)).toBe(true)
  expect(redactor.holds(`${filler}taxonomy-mock-ke\\u0079${filler}`)).toBe(true)
  expect(redactor.holds(`${filler}taxonomy-mock-ke&#121;`)).toBe(true)
  expect(redactor.holds(`${filler}taxonomy-mock-ke%y&#121;${filler}`)).toBe(false)
})
