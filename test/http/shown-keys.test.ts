import { expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { resolveOptions } from '../../src/http/options.js'
import { createResolver } from '../../src/http/resolver.js'
import { maskKey, showKeys } from '../../src/http/shown-keys.js'
import { formatUrlLine } from '../../src/cli/banner.js'
import { resolveNow } from '../helpers/transports.js'

const taxonomy = createTaxonomy({ seed: 1, size: 'small' })
const SHORT = 'k9Zq4mw7P'
const LONG = 'k9Zq4mw7Pe2Rt8Yu1Io5Lk3J'

it('shows nothing of a short key and at most three characters of a long one', () => {
  expect(maskKey(SHORT)).toBe('(hidden)')
  expect(maskKey(LONG)).toBe('k9Z…')
  expect(
    showKeys([SHORT, LONG, 'taxonomy-mock-key'], 'taxonomy-mock-key', 'terminal').shown,
  ).toEqual(['(hidden)', 'k9Z…', 'taxonomy-mock-key'])
})

it('prints keys other than the default masked in the banner line', () => {
  const line = formatUrlLine('http://127.0.0.1:4477', [SHORT, LONG], { seed: 1 } as never)
  expect(line).toContain('keys: (hidden), k9Z…)')
  expect(line).not.toContain('w7P')
})

it('counts a key given twice once', () => {
  expect(resolveOptions({ apiKeys: [SHORT, SHORT, 'taxonomy-mock-key', SHORT] }).apiKeys).toEqual([
    SHORT,
    'taxonomy-mock-key',
  ])
})

it('shows no part of a key other than the default on GET /, only how many there are', () => {
  const page = (apiKeys: string[]) => {
    const answer = resolveNow(createResolver({ taxonomy, apiKeys }), {
      method: 'GET',
      url: '/',
      header: () => undefined,
    })
    return new TextDecoder().decode(answer.body!)
  }
  const text = page([LONG, SHORT, 'taxonomy-mock-key'])
  expect(text).toContain('Accepted key: <code>taxonomy-mock-key, 2 other keys (not shown)</code>')
  for (const part of ['k9Z', 'w7P', '…']) expect(text).not.toContain(part)
  expect(page([LONG])).toContain('Accepted key: <code>1 other key (not shown)</code>')
})
