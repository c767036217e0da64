import { describe, expect, it } from 'vitest'
import { withoutStoreFlag } from '../../src/cli/args.js'
import { parseStoreAddress } from '../../src/server/replica/store-address.js'
import { runCli } from '../helpers/cli.js'

describe('--store', () => {
  it.each([
    ['http://127.0.0.1:6379', /--store must be a redis:\/\/ or rediss:\/\/ URL/],
    ['not a url', /--store must be a redis:\/\/HOST:PORT\[\/DB\] URL/],
    ['redis://127.0.0.1:6379/a/b', /--store's path must be a database number/],
    ['redis://127.0.0.1:6379?prefix=a%20b', /--store's prefix must be 1-64 letters/],
    ['redis://127.0.0.1:6379?db=2', /--store takes only \?prefix=NAME and \?timeout=MS/],
    // The client would drop it unsaid, as it would a query parameter it does not know.
    ['redis://127.0.0.1:6379/2#prefix=a', /--store takes no #fragment/],
    [
      'redis://127.0.0.1:6379?timeout=fast',
      /--store's timeout must be a whole number of milliseconds from 50 to 60000/,
    ],
    ['redis://127.0.0.1:6379?timeout=0', /--store's timeout must be a whole number/],
    // Two replicas given the same URL must not read it two ways: the first was taken unsaid.
    [
      'redis://127.0.0.1:6379?prefix=a&prefix=b',
      /^taxonomy-mock: --store names \?prefix= twice; received "redis:\/\/127\.0\.0\.1:6379\?prefix=a&prefix=b" \(string\)$/,
    ],
    ['redis://127.0.0.1:6379?timeout=500&timeout=5', /--store names \?timeout= twice/],
    // The client percent-decodes them, and would fail as though the store could not be reached.
    [
      'redis://:hunter2%pw@127.0.0.1:6379',
      /^taxonomy-mock: --store's password must be percent-encoded: a % not followed by two hex digits \(write % as %25\); received "redis:\/\/:\*\*\*@127\.0\.0\.1:6379" \(string\)$/,
    ],
    [
      'redis://:hunter2%ffpw@127.0.0.1:6379',
      /^taxonomy-mock: --store's password must be percent-encoded: its %-escapes are not UTF-8; received "redis:\/\/:\*\*\*@127\.0\.0\.1:6379" \(string\)$/,
    ],
    [
      'redis://us%er:pw@127.0.0.1:6379',
      /^taxonomy-mock: --store's user name must be percent-encoded: a % not followed by two hex digits/,
    ],
  ])('refuses %s: one line, exit 2, before anything listens', async (value, message) => {
    const { code, stdout, stderr } = await runCli(['--port', '0', '--store', value])
    expect(code).toBe(2)
    expect(stdout).toEqual([])
    expect(stderr[0]).toMatch(message)
  })

  it('never shows a password, in a message or the address it shows', async () => {
    const { stderr } = await runCli(['--port', '0', '--store', 'http://user:s3cret-pw@host:1'])
    expect(stderr.join('\n')).toContain('user:***@host')
    expect(stderr.join('\n')).not.toContain('s3cret-pw')
    const bad = await runCli(['--port', '0', '--store', 'redis://:s3cret-pw@h:1/x/y'])
    expect(bad.stderr.join('\n')).not.toContain('s3cret-pw')
    // A password with a `/` (base64 has them), whether the URL then parses or not.
    for (const store of ['redis://:s3cret/pw@127.0.0.1:6379', 'redis://u:123/s3cret@h:1']) {
      const slash = await runCli(['--port', '0', '--store', store])
      expect(slash.code).toBe(2)
      expect(slash.stderr.join('\n')).toContain('***@')
      expect(slash.stderr.join('\n')).not.toContain('s3cret')
    }
    const slashInEnv = await runCli(['--port', '0'], {
      TAXONOMY_MOCK_STORE: 'redis://:topsecret/x@127.0.0.1:6379',
    })
    expect(slashInEnv.code).toBe(2)
    expect(slashInEnv.stderr.join('\n')).not.toContain('topsecret')
    const atInQuery = await runCli([
      '--port',
      '0',
      '--store',
      'redis://127.0.0.1:1/0?x=a@b&password=s3cret&timeout=5',
    ])
    expect(atInQuery.code).toBe(2)
    expect(atInQuery.stderr.join('\n')).not.toContain('s3cret')
    expect(parseStoreAddress('redis://:s3cret-pw@h:1/2?prefix=team-a&timeout=500')).toEqual({
      url: 'redis://:s3cret-pw@h:1/2',
      display: 'redis://:***@h:1/2?prefix=team-a&timeout=500',
      prefix: 'team-a',
      timeout: 500,
    })
    expect(parseStoreAddress('rediss://h')).toMatchObject({
      prefix: 'taxonomy-mock',
      timeout: 2000,
    })
    // A `%` in a password, percent-encoded: the client decodes it.
    expect(parseStoreAddress('redis://:hunter2%25pw@h:1')).toMatchObject({
      url: 'redis://:hunter2%25pw@h:1',
      display: 'redis://:***@h:1',
    })
    // A value without `scheme://`: whatever parses of it, all before the last `@` may be the password.
    for (const store of [
      'default:hunter2pw@redis:6379',
      'redis:/:hunter2pw@redis:6379',
      '//:hunter2pw@redis:6379',
      'redis:hunter2pw@redis:6379',
      ':hunter2pw@redis:6379',
    ]) {
      for (const run of [
        await runCli(['--port', '0', '--store', store]),
        await runCli(['--port', '0'], { TAXONOMY_MOCK_STORE: store }),
      ]) {
        expect(run.code, store).toBe(2)
        expect(run.stderr, store).toHaveLength(1)
        expect(run.stderr[0], store).toContain('"***@redis:6379"')
        expect(run.stderr[0], store).not.toContain('hunter2pw')
      }
    }
    // A password in the query is refused, and not shown either.
    const query = await runCli(['--port', '0', '--store', 'redis://h:1/0?password=s3cret-pw'])
    expect(query.code).toBe(2)
    expect(query.stderr.join('\n')).toContain('?password=[redacted]')
    expect(query.stderr.join('\n')).not.toContain('s3cret-pw')
  })

  it.each([
    ['', /^taxonomy-mock: TAXONOMY_MOCK_STORE is set but empty/],
    [
      'http://user:s3cret-pw@host:1',
      /^taxonomy-mock: TAXONOMY_MOCK_STORE must be a redis:\/\/ or rediss:\/\/ URL; received "http:\/\/user:\*\*\*@host:1\/" \(string\)$/,
    ],
  ])(
    'refuses TAXONOMY_MOCK_STORE=%j naming the variable, never the password: exit 2',
    async (value, message) => {
      const { code, stdout, stderr } = await runCli(['--port', '0'], { TAXONOMY_MOCK_STORE: value })
      expect(code).toBe(2)
      expect(stdout).toEqual([])
      expect(stderr).toHaveLength(1)
      expect(stderr[0]).toMatch(message)
    },
  )

  it('leaves --store and its value out of the command line a --workers primary gives its workers', () => {
    expect(
      withoutStoreFlag([
        '--port',
        '0',
        '--store',
        'redis://:pw@h:1',
        '--workers',
        '2',
        '--store=redis://:pw@h:2',
        '--quiet',
      ]),
    ).toEqual(['--port', '0', '--workers', '2', '--quiet'])
  })
})
