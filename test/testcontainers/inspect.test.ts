import { inspect } from 'node:util'
import type { StartedTestContainer } from 'testcontainers'
import { expect, it } from 'vitest'
import {
  StartedTaxonomyMockContainer,
  TaxonomyMockContainer,
} from '../../src/testcontainers/index.js'

it('shows no admin key when a container is inspected (logged, or printed by a failing assertion)', () => {
  const container = new TaxonomyMockContainer('taxonomy-mock:test').withAdminKey('admin-key-1234')
  expect(inspect(container, { depth: 5 })).not.toContain('admin-key-1234')
})

it('shows no admin key, inspected or diffed, once start() has put it in the environment Testcontainers keeps', () => {
  // What start() adds before it asks Testcontainers for the container.
  const container = new TaxonomyMockContainer('taxonomy-mock:test')
    .withSeed(7)
    .withEnvironment({ TAXONOMY_MOCK_ADMIN_KEY: 'admin-key-SECRET-1234' })
  const shown = inspect(container, { depth: 6 })
  expect(shown).not.toContain('SECRET')
  expect(shown).toContain("TAXONOMY_MOCK_SEED: '7'")
  expect(shown).toContain('taxonomy-mock:test')
  // What Vitest's and Jest's diffs print of it (pretty-format calls toJSON).
  expect(JSON.stringify({ container })).not.toContain('SECRET')
})

it('shows no admin key when a started container is inspected or diffed, though Testcontainers keeps its environment', () => {
  // The parts of Testcontainers' started container that inspect shows: its `docker inspect` answer.
  const started = {
    inspectResult: { Config: { Env: ['TAXONOMY_MOCK_ADMIN_KEY=admin-key-SECRET-1234'] } },
    getId: () => 'c0ffee',
    getName: () => '/taxonomy-mock-1',
    getHost: () => '127.0.0.1',
    getMappedPort: () => 32768,
  } as unknown as StartedTestContainer
  const mock = new StartedTaxonomyMockContainer(started, 'admin-key-SECRET-1234')
  const shown = inspect(mock, { depth: 6 })
  expect(shown).not.toContain('SECRET')
  expect(shown).toContain('http://127.0.0.1:32768')
  expect(JSON.stringify({ mock })).not.toContain('SECRET')
})

it('refuses withCommand, whose command start() would replace, and names withFlags', () => {
  const container = new TaxonomyMockContainer('taxonomy-mock:test')
  expect(() => container.withCommand(['serve', '--any-key'])).toThrow(
    new TypeError(
      'TaxonomyMockContainer runs `serve` with the flags its methods set: pass more with withFlags(...), not withCommand; received withCommand(["serve","--any-key"])',
    ),
  )
})
