import { describe, expect, it } from 'vitest'
import { parseStoreAddress } from '../../src/server/replica/store-address.js'
import { runCli } from '../helpers/cli.js'

describe('--store', () => {
  it.each([
    ['http://127.0.0.1:6379', /--store must be a redis:\/\/ or rediss:\/\/ URL/],
    ['not a url', /--store must be a redis:\/\/HOST:PORT\[\/DB\] URL/],
    ['redis://127.0.0.1:6379/a/b', /--store's path must be a database number/],
    ['redis://127.0.0.1:6379?prefix=a%20b', /--store's prefix must be 1-64 letters/],
    ['redis://127.0.0.1:6379?db=2', /--store takes only \?prefix=NAME/],
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
    expect(parseStoreAddress('redis://:s3cret-pw@h:1/2?prefix=team-a')).toEqual({
      url: 'redis://:s3cret-pw@h:1/2',
      display: 'redis://:***@h:1/2?prefix=team-a',
      prefix: 'team-a',
    })
    expect(parseStoreAddress('rediss://h').prefix).toBe('taxonomy-mock')
    // A password in the query is refused, and not shown either.
    const query = await runCli(['--port', '0', '--store', 'redis://h:1/0?password=s3cret-pw'])
    expect(query.code).toBe(2)
    expect(query.stderr.join('\n')).toContain('?password=[redacted]')
    expect(query.stderr.join('\n')).not.toContain('s3cret-pw')
  })
})
