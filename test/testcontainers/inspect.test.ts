import { inspect } from 'node:util'
import { expect, it } from 'vitest'
import { TaxonomyMockContainer } from '../../src/testcontainers/index.js'

it('shows no admin key when a container is inspected (logged, or printed by a failing assertion)', () => {
  const container = new TaxonomyMockContainer('taxonomy-mock:test').withAdminKey('admin-key-1234')
  expect(inspect(container, { depth: 5 })).not.toContain('admin-key-1234')
})
