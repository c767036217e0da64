import { expect, it } from 'vitest'
import {
  cutText,
  replaceControls,
  toOneLine,
  toQuoted,
  toShownJson,
} from '../../src/core/shown-text.js'

// The bidirectional marks move the neutral text around them (`a\u200f: 1` can show its colon
// on the other side): on a terminal line they are controls, as the overrides are.
const MARKS = '\u061c\u200e\u200f'

it('replaces the bidirectional marks ALM, LRM and RLM as it does the overrides', () => {
  expect(replaceControls(`a${MARKS}\u202eb`)).toBe('a\ufffd\ufffd\ufffd\ufffdb')
  expect(toOneLine(`a\n${MARKS}`)).toBe('a \ufffd\ufffd\ufffd')
})

it('quotes the bidirectional marks as escapes that read back as they were', () => {
  const quoted = toQuoted(`x${MARKS}y`)
  expect(quoted).toBe('"x\\u061c\\u200e\\u200fy"')
  expect(JSON.parse(quoted)).toBe(`x${MARKS}y`)
})

it('shows JSON with the controls in its strings escaped as toQuoted escapes them, still JSON', () => {
  const value = { kind: 'hang', slug: `x\u009b2J${MARKS}\u202e` }
  const shown = toShownJson(value)
  expect(shown).toBe('{"kind":"hang","slug":"x\\u009b2J\\u061c\\u200e\\u200f\\u202e"}')
  expect(JSON.parse(shown)).toEqual(value)
})

it('cuts text between two characters, never between the halves of an emoji', () => {
  expect(cutText('abc', 3)).toBe('abc')
  expect(cutText('abcd', 3)).toBe('abc')
  expect(cutText('a🧬b', 2)).toBe('a')
  expect(cutText('a🧬b', 3)).toBe('a🧬')
  expect(cutText('\udc00x', 1)).toBe('\udc00')
})
