import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

it('refuses at the call a size, flag or admin key no command or server could take (they reached the command as they were)', () => {
  const container = new TaxonomyMockContainer('taxonomy-mock:test')
  // An object or a number went into the container's command as it was.
  expect(() => container.withSize({ topics: 5 } as never)).toThrow(
    new TypeError("withSize: size must be 'small', 'medium' or 'large'; received an object"),
  )
  expect(() => container.withSize('huge' as never)).toThrow(/^withSize: size must be /)
  expect(() => container.withFlags('--any-key', 5 as never)).toThrow(
    new TypeError(
      'withFlags: each flag must be a string, as a command line holds it; received 5 (number)',
    ),
  )
  expect(() => container.withFlags(undefined as never)).toThrow(/received undefined/)
  // `undefined` sent no key with the admin calls: every session() a 403. A key is never quoted.
  expect(() => container.withAdminKey(undefined as never)).toThrow(/^withAdminKey: the key must be/)
  expect(() => container.withAdminKey('an admin key')).toThrow(
    new TypeError(
      'withAdminKey: the key must be 1-256 visible ASCII characters with no spaces; received a string of 12 characters',
    ),
  )
  expect(container.toJSON()).toEqual({ image: 'taxonomy-mock:test', flags: [], environment: {} })
})

it('shows no secret a flag or variable carries: API keys, a store or upstream URL', () => {
  const container = new TaxonomyMockContainer('taxonomy-mock:test')
    .withFlags('--api-key', 'API-SECRET-1', '--store=redis://:REDIS-SECRET@redis:6379')
    .withFlags('--upstream', 'https://user:UP-SECRET@api.example.test', '--delay', '300')
    .withEnvironment({ TAXONOMY_API_KEY: 'REAL-SECRET', TAXONOMY_MOCK_SEED: '7' })
  for (const shown of [inspect(container, { depth: 6 }), JSON.stringify({ container })]) {
    expect(shown).not.toMatch(/SECRET/)
    expect(shown).toContain('--delay')
    expect(shown).toContain('300')
  }
  expect(container.toJSON()).toMatchObject({
    flags: [
      '--api-key',
      '[hidden]',
      '--store=[hidden]',
      '--upstream',
      '[hidden]',
      '--delay',
      '300',
    ],
    environment: { TAXONOMY_API_KEY: '[hidden]', TAXONOMY_MOCK_SEED: '7' },
  })
})

it.each(['--admin-key', '--admin-key=k', '--port', '-p', '--host', '--tls', '--tls-cert'])(
  'refuses withFlags(%s), which the container sets itself: given again, the server would win',
  (flag) => {
    expect(() => new TaxonomyMockContainer('taxonomy-mock:test').withFlags(flag, 'x')).toThrow(
      new RegExp(`^withFlags: ${flag.split('=')[0]} is the container's own`),
    )
  },
)

it.each(['-p5000', '-qp5000', '-qp'])(
  'refuses withFlags(%s), the short form with its value attached or grouped, which sets --port too',
  (flag) => {
    expect(() => new TaxonomyMockContainer('taxonomy-mock:test').withFlags(flag)).toThrow(
      /^withFlags: -p is the container's own/,
    )
  },
)

it('takes short flags that set no port: -q', () => {
  expect(() => new TaxonomyMockContainer('taxonomy-mock:test').withFlags('-q')).not.toThrow()
})

it('refuses in start(), before a container is made, a withData path that is no file; one written after withData is taken', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-with-data-'))
  try {
    const missing = join(dir, 'missing.json')
    await expect(
      new TaxonomyMockContainer('taxonomy-mock:test').withData(missing).start(),
    ).rejects.toThrow(
      new TypeError(`withData: cannot read ${JSON.stringify(missing)}: no such file`),
    )
    await expect(
      new TaxonomyMockContainer('taxonomy-mock:test').withData(dir).start(),
    ).rejects.toThrow(
      new TypeError(`withData: ${JSON.stringify(dir)} is a directory, not a fixture file`),
    )
    // Named before it exists (a test that writes it in beforeAll): taken, copied in by start().
    const later = join(dir, 'fixture.json')
    const container = new TaxonomyMockContainer('taxonomy-mock:test').withData(later)
    writeFileSync(later, '{}')
    expect(container.toJSON()).toMatchObject({ flags: ['--data', '/app/taxonomy-mock-data.json'] })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
