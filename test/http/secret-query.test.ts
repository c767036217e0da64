import { expect, it } from 'vitest'
import {
  createQueryRedactor,
  redactUrl,
  SECRET_QUERY_PARAMETERS,
} from '../../src/http/secret-query.js'

const KEY = 'query-secret-key-0123456789'
const ADMIN = 'query-admin-key-9876543210'
const redact = createQueryRedactor({ apiKeys: [KEY], adminKey: ADMIN })

it.each([
  // Names of the table, in any case, spelling or percent-encoding; the name is kept.
  ['/api/v2/x?api_key=a1&page=2', '/api/v2/x?api_key=[redacted]&page=2'],
  ['/api/v2/x?access_token=a1', '/api/v2/x?access_token=[redacted]'],
  ['/api/v2/x?key=a1', '/api/v2/x?key=[redacted]'],
  [
    '/api/v2/x?API-Key=a1&apiKey=a2&X-Api-Key=a3',
    '/api/v2/x?API-Key=[redacted]&apiKey=[redacted]&X-Api-Key=[redacted]',
  ],
  ['/api/v2/x?api%5Fkey=a1', '/api/v2/x?api%5Fkey=[redacted]'],
  [
    '/api/v2/x?q=1&token=a&password=b&client_secret=c',
    '/api/v2/x?q=1&token=[redacted]&password=[redacted]&client_secret=[redacted]',
  ],
  // An accepted key or the admin key under any name, as sent or percent- or form-encoded.
  [`/api/v2/x?q=${KEY}`, '/api/v2/x?q=[redacted]'],
  [`/api/v2/x?q=${encodeURIComponent(KEY).replace(/-/g, '%2D')}`, '/api/v2/x?q=[redacted]'],
  [`/api/v2/x?as=${ADMIN}`, '/api/v2/x?as=[redacted]'],
  [`/api/v2/x?${KEY}`, '/api/v2/x?[redacted]'],
  [`/api/v2/x?${KEY}=1`, '/api/v2/x?[redacted]=1'],
  // A key among other text, as sent or decoded leniently: `+` a space, a `%` that escapes nothing
  // kept, a cut UTF-8 sequence; in a name too.
  [`/api/v2/x?y=${KEY}%`, '/api/v2/x?y=[redacted]'],
  [`/api/v2/x?b=${KEY}+&c=+${ADMIN}`, '/api/v2/x?b=[redacted]&c=[redacted]'],
  [`/api/v2/x?b=${KEY}%E2%82`, '/api/v2/x?b=[redacted]'],
  [`/api/v2/x?b=%zz${KEY}%`, '/api/v2/x?b=[redacted]'],
  [`/api/v2/x?x=Bearer%20${KEY}`, '/api/v2/x?x=[redacted]'],
  [`/api/v2/x?x=Bearer+${encodeURIComponent(KEY).replace(/-/g, '%2D')}`, '/api/v2/x?x=[redacted]'],
  [`/api/v2/x?x=${KEY}x&page=2`, '/api/v2/x?x=[redacted]&page=2'],
  [`/api/v2/x?a${KEY}=1`, '/api/v2/x?[redacted]=1'],
  [`/api/v2/x?${KEY}=${ADMIN}`, '/api/v2/x?[redacted]=[redacted]'],
  [
    '/api/v2/x?private_token=a&app_key=b&jwt=c&app_secret=d&api_secret=e',
    '/api/v2/x?private_token=[redacted]&app_key=[redacted]&jwt=[redacted]&app_secret=[redacted]&api_secret=[redacted]',
  ],
  ['/api/v2/x?api_token=a&oauth_token=b', '/api/v2/x?api_token=[redacted]&oauth_token=[redacted]'],
  ['/api/v2/x?access_key=a&secret_key=b', '/api/v2/x?access_key=[redacted]&secret_key=[redacted]'],
  // An absolute form's userinfo, whatever it holds, up to the authority's last `@`.
  [`http://${KEY}@127.0.0.1/api/v2/x`, 'http://[redacted]@127.0.0.1/api/v2/x'],
  ['HTTP://u:p@ss@h.test/api/v2/x?a@b', 'HTTP://[redacted]@h.test/api/v2/x?a@b'],
  ['ftp://user:pw@h.test/x', 'ftp://[redacted]@h.test/x'],
  // A whole URL, its fragment too (a web Request keeps it).
  [
    `https://h.test/api/v2/x?q=1#access_token=a&b=${KEY}`,
    'https://h.test/api/v2/x?q=1#access_token=[redacted]&b=[redacted]',
  ],
])('redacts %s', (target, expected) => {
  expect(redact(target)).toBe(expected)
})

it.each([
  '/api/v2/disciplines/x',
  '/api/v2/x?',
  '/api/v2/x?key',
  '/api/v2/x?key=',
  '/api/v2/x?keys=1&monkey=2&q=%E0&page=2',
  `/api/v2/${KEY}`,
  '/api/v2/x@y',
  'http://h.test/api/v2/x@y',
])('keeps %s as it is, the same string', (target) => {
  expect(redact(target)).toBe(target)
})

it('hides a key with `=` in it sent across the first `=` of its pair, as a bare name', () => {
  const padded = createQueryRedactor({ apiKeys: ['cXVlcnkta2V5LWJhc2U2NA=='], adminKey: undefined })
  expect(padded('/x?cXVlcnkta2V5LWJhc2U2NA==&page=2')).toBe('/x?[redacted]&page=2')
  expect(padded('/x?q=cXVlcnkta2V5LWJhc2U2NA==')).toBe('/x?q=[redacted]')
})

it('finds a key at any place of a long value, and nothing that only nearly is one', () => {
  const near = `${KEY.slice(0, -1)}!`
  for (const at of [0, 1, 500, 1000]) {
    const around = (text: string) => `/x?q=${'x'.repeat(at)}${text}${'y'.repeat(1000 - at)}`
    expect(redact(around(KEY))).toBe('/x?q=[redacted]')
    expect(redact(around(near))).toBe(around(near))
  }
})

it('hides a key shorter than 8 characters only as a whole value or name: it stands inside words', () => {
  const short = createQueryRedactor({ apiKeys: ['k1'], adminKey: 'adm' })
  expect(short('/x?search=k1ng&page=2&note=badminton')).toBe('/x?search=k1ng&page=2&note=badminton')
  expect(short('/x?q=k1&a=adm&k1')).toBe('/x?q=[redacted]&a=[redacted]&[redacted]')
})

it('names each parameter of the table by its letters and digits in lower case', () => {
  for (const name of SECRET_QUERY_PARAMETERS) expect(name).toMatch(/^[a-z0-9]+$/)
})

it('hides no value under any name when any key is accepted, only the names of the table', () => {
  const any = createQueryRedactor({ apiKeys: 'any', adminKey: undefined })
  expect(any('/x?q=anything&api_key=a')).toBe('/x?q=anything&api_key=[redacted]')
})

it('hides the credentials of a URL someone gave, and its secret query values', () => {
  expect(redactUrl('https://user:pw@api.example.test/p?token=t&q=1')).toBe(
    'https://[redacted]@api.example.test/p?token=[redacted]&q=1',
  )
  // Up to the last `@`: a password may hold an unencoded `/`, `?` or `#`, which a parser reads
  // as the end of the authority; an `@` in a path is hidden with it.
  for (const password of ['hun/ter2', 'pa?ss', 'p#w', 'a@b/c'])
    expect(redactUrl(`https://user:${password}@api.example.test/p`)).toBe(
      'https://[redacted]@api.example.test/p',
    )
  expect(redactUrl('http://127.0.0.1:4477/a@b')).toBe('http://[redacted]@b')
  expect(redactUrl('http://127.0.0.1:4477/a?q=1')).toBe('http://127.0.0.1:4477/a?q=1')
  // An `@` in the query: its secrets are hidden before the credentials' end is looked for.
  expect(redactUrl('http://h/?e=a@b&api_key=s3cret')).not.toContain('s3cret')
  // Without `scheme://` no parser finds the credentials where they were meant: all before the last `@` goes.
  for (const typed of [
    'default:hunter2pw@redis:6379',
    'redis:/:hunter2pw@redis:6379',
    'redis:hunter2pw@redis:6379',
    '//:hunter2pw@redis:6379',
    ':hunter2pw@redis:6379',
    'http:u:hunter2pw@redis:6379',
  ])
    expect(redactUrl(typed)).toBe('[redacted]@redis:6379')
})
