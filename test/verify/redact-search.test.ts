import { expect, it, vi } from 'vitest'
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

/**
 * The work `holds` does on `text`: how many times the whole key pattern is tried at a place, and
 * how many characters are read for their JSON escapes.
 */
function workOf(redactor: ReturnType<typeof createRedactor>, text: string) {
  const test = vi.spyOn(RegExp.prototype, 'test')
  const replace = vi.spyOn(RegExp.prototype, Symbol.replace)
  try {
    const held = redactor.holds(text)
    // Read before the spies are restored, which forgets their calls.
    return {
      held,
      patternRuns: test.mock.contexts.filter((pattern) => (pattern as RegExp).sticky).length,
      escapesRead: replace.mock.calls.reduce((sum, [read]) => sum + String(read).length, 0),
    }
  } finally {
    test.mockRestore()
    replace.mockRestore()
  }
}

it('tries the key pattern nowhere, and reads no escape, in a body of escapes of characters past ASCII, at any size', () => {
  const redactor = createRedactor('taxonomy-mock-key')
  // Cyrillic as Python's json.dumps writes it, percent-encoded UTF-8, and HTML references (`&#1078`
  // may be read as `&#107`, a `k` of the key, then `8`).
  for (const escape of ['\\u0436', '%D0%B6', '&#1078;'])
    for (const count of [10_000, 40_000]) {
      // A JSON string: no character of the key (or of its base64) around the escapes.
      const work = workOf(redactor, `"${escape.repeat(count)}"`)
      expect({ escape, count, ...work }).toEqual({
        escape,
        count,
        held: false,
        patternRuns: 0,
        escapesRead: 0,
      })
    }
})

it('tries the key pattern at most once for each place its first character may be encoded, in proportion to the body', () => {
  const redactor = createRedactor('taxonomy-mock-key')
  // The key's first character, `t`, encoded among other characters: each may start the key.
  const runs = (count: number) =>
    ['\\u0074', '%74', '&#116;'].map((escape) => {
      const work = workOf(redactor, `"${`${escape}\\u0436ab`.repeat(count)}"`)
      expect(work.held).toBe(false)
      expect(work.patternRuns).toBeLessThanOrEqual(count)
      return work.patternRuns
    })
  const once = runs(5_000)
  expect(runs(20_000)).toEqual(once.map((run) => run * 4))
})

it('finds the key in a JSON body where escapes of characters past ASCII surround it, exactly where the pattern finds it in the body or its parsed value', () => {
  const random = createRandom(13)
  let held = 0
  for (const key of KEYS) {
    const redactor = createRedactor(key)
    for (let round = 0; round < 300; round++) {
      // The key (or most of it) among Cyrillic, some of it inside its encodings, escaped as
      // Python's json.dumps escapes it.
      const text = [...noisyText(key, random, round % 2 === 0)]
        .map((char) => (random() < 0.02 ? `${char}${String.fromCharCode(0x410 + round)}` : char))
        .join('')
      const body = JSON.stringify(text)
        .slice(1, -1)
        .replace(
          /[^\x00-\x7f]/g,
          (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
        )
      const parsed = JSON.parse(`"${body}"`) as string
      const expected = redactor.redact(body) !== body || redactor.redact(parsed) !== parsed
      expect(redactor.holds(body), JSON.stringify({ key, body })).toBe(expected)
      if (expected) held++
    }
  }
  // Both answers were met, many times.
  expect(held).toBeGreaterThan(150)
  expect(held).toBeLessThan(1_000)
})
