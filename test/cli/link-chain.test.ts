import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { findLinkChain } from '../../src/cli/link-chain.js'

const tempFolder = () => realpathSync(mkdtempSync(join(tmpdir(), 'taxonomy-mock-chain-')))
const asObject = (chain: Map<string, Set<string>>) =>
  Object.fromEntries([...chain].map(([folder, names]) => [folder, [...names].sort()]))

it('lists each link along the chain in its folder, and the file at its end', () => {
  const root = tempFolder()
  mkdirSync(join(root, '..2026_01_01'))
  writeFileSync(join(root, '..2026_01_01', 'data.json'), '{}')
  symlinkSync('..2026_01_01', join(root, '..data'))
  symlinkSync('..data/data.json', join(root, 'data.json'))
  mkdirSync(join(root, 'mount'))
  symlinkSync('../data.json', join(root, 'mount', 'taxonomy.json'))
  expect(asObject(findLinkChain(join(root, 'mount', 'taxonomy.json')))).toEqual({
    [join(root, 'mount')]: ['taxonomy.json'],
    [root]: ['..data', 'data.json'],
    [join(root, '..2026_01_01')]: ['data.json'],
  })
})

it('lists a plain file alone, and a missing entry where the chain breaks', () => {
  const root = tempFolder()
  writeFileSync(join(root, 'data.json'), '{}')
  expect(asObject(findLinkChain(join(root, 'data.json')))).toEqual({ [root]: ['data.json'] })
  symlinkSync('gone/data.json', join(root, 'link.json'))
  expect(asObject(findLinkChain(join(root, 'link.json')))).toEqual({
    [root]: ['gone', 'link.json'],
  })
})

it('ends at a loop of links', () => {
  const root = tempFolder()
  symlinkSync('b.json', join(root, 'a.json'))
  symlinkSync('a.json', join(root, 'b.json'))
  expect(asObject(findLinkChain(join(root, 'a.json')))).toEqual({ [root]: ['a.json', 'b.json'] })
})
