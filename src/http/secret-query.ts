import { equalInConstantTime } from './auth.js'
import type { ResolvedOptions } from './options.js'

/** What stands for a secret query value wherever a URL is kept or printed, as `Bearer [redacted]` does for the header. */
const REDACTED_VALUE = '[redacted]'

/**
 * The one table of query parameters whose value is a credential, by the letters and digits of the
 * name in lower case: `api_key`, `api-key`, `apiKey` and `API%5FKEY` are all `apikey`.
 */
export const SECRET_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'key',
  'apikey',
  'appkey',
  'xapikey',
  'subscriptionkey',
  'adminkey',
  'privatekey',
  'accesskey',
  'secretkey',
  'token',
  'jwt',
  'apitoken',
  'oauthtoken',
  'accesstoken',
  'authtoken',
  'idtoken',
  'refreshtoken',
  'sessiontoken',
  'privatetoken',
  'auth',
  'authorization',
  'bearer',
  'password',
  'passwd',
  'secret',
  'clientsecret',
  'apisecret',
  'appsecret',
  'signature',
  'sig',
])

/**
 * A URL or request target with the value of each secret parameter of its query (or fragment)
 * replaced by `[redacted]`, the name kept: a parameter named in {@link SECRET_QUERY_PARAMETERS},
 * or any whose value (as sent, percent- or form-decoded) holds one of `secrets` anywhere in it
 * (`Bearer KEY`, `KEY+`, `KEY%`), which is hidden in a name too. Anything else is kept as it
 * was; a target without `?` or `#` is returned as it is, so the common case costs two searches.
 * `path`: each segment of the path that holds one of `secrets` is `[redacted]` too, for a request
 * the data did not answer (a client that put a key in the path by mistake gets a 404); an answered
 * one's path names a record, which holds no key, and is not searched.
 */
export type QueryRedactor = (target: string, path?: boolean) => string

/** What stands for a secret wherever it was: a query value, a path segment, a journaled slug. */
export const REDACTED = REDACTED_VALUE

/**
 * The redactor for a mock's options: its API keys (none for `anyKey`), its admin key and `others`
 * (an upstream's key) are the values hidden under any name. The journal, the HAR file and the
 * request log all use it.
 *
 * @example
 * createQueryRedactor({ apiKeys: ['k1'], adminKey: undefined })('/api/v2/x?api_key=a&q=k1&page=2')
 * // '/api/v2/x?api_key=[redacted]&q=[redacted]&page=2'
 */
export function createQueryRedactor(
  options: Pick<ResolvedOptions, 'apiKeys' | 'adminKey'>,
  others: readonly string[] = [],
): QueryRedactor {
  const secrets = [...keysOf(options), ...others]
  return (target, path = false) => {
    const redacted = redactQuery(
      // A client's absolute-form target: its userinfo is credentials, whatever part is the key.
      target.charCodeAt(0) === 0x2f ? target : target.replace(USERINFO, `$1${REDACTED_VALUE}@`),
      secrets,
    )
    return path ? redactPath(redacted, secrets) : redacted
  }
}

/** A target's path: up to its query or fragment. */
export function pathOf(target: string): string {
  return /^[^?#]*/.exec(target)![0]
}

/** `target` with each segment of its path that holds one of `secrets` as `[redacted]`. */
function redactPath(target: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return target
  const end = pathOf(target).length
  const segments = target.slice(0, end).split('/')
  let changed = false
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] === '' || !holdsSecret(segments[i]!, secrets)) continue
    segments[i] = REDACTED_VALUE
    changed = true
  }
  return changed ? segments.join('/') + target.slice(end) : target
}

/** A mock's keys: its API keys (none for `anyKey`) and its admin key. */
export function keysOf(options: Pick<ResolvedOptions, 'apiKeys' | 'adminKey'>): string[] {
  return [
    ...(options.apiKeys === 'any' ? [] : options.apiKeys),
    ...(options.adminKey === undefined ? [] : [options.adminKey]),
  ]
}

/**
 * Whether `text` (a header a request sent) holds one of a mock's keys, found as in a query value:
 * an answer that would quote it back (a 400 naming a bad value) must not, for the journal and the
 * HAR file keep answers' bodies.
 */
export function holdsMockKey(
  options: Pick<ResolvedOptions, 'apiKeys' | 'adminKey'>,
  text: string,
  others: readonly string[] = [],
): boolean {
  return holdsSecret(text, [...keysOf(options), ...others])
}

/**
 * An absolute-form target's userinfo (`http://user:KEY@host/…`): credentials by their place, what
 * their value. Up to the authority's last `@`.
 */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i

/** {@link QueryRedactor} with the values to hide under any name. */
export function redactQuery(target: string, secrets: readonly string[] = []): string {
  const query = target.indexOf('?')
  // A fragment is no part of a request target, but a web `Request`'s URL keeps it, and OAuth
  // puts an `access_token` there: its pairs are read as the query's are.
  const hash = target.indexOf('#')
  if (query === -1 && hash === -1) return target
  const start = query === -1 || (hash !== -1 && hash < query) ? hash : query
  const parts = target.slice(start + 1).split('#')
  let changed = false
  for (let p = 0; p < parts.length; p++) {
    const pairs = parts[p]!.split('&')
    for (let i = 0; i < pairs.length; i++) {
      const redacted = redactPair(pairs[i]!, secrets)
      if (redacted !== undefined) {
        pairs[i] = redacted
        changed = true
      }
    }
    parts[p] = pairs.join('&')
  }
  // Joined, not concatenated: a copy of its own, so a journal that keeps it keeps no view of a
  // long target (the secret it dropped may have been most of it).
  return changed ? [target.slice(0, start + 1), parts.join('#')].join('') : target
}

/** A pair with its secret replaced, or `undefined` when it holds none. */
function redactPair(pair: string, secrets: readonly string[]): string | undefined {
  const equals = pair.indexOf('=')
  const name = equals === -1 ? pair : pair.slice(0, equals)
  const value = equals === -1 ? undefined : pair.slice(equals + 1)
  const named = value !== undefined && value !== '' && isSecretName(name)
  // One search of the whole pair: its parts are searched only when it holds a key (or when a key
  // is short, which `contains` finds only as a whole name or value, never in the pair's text).
  const held =
    holdsSecret(pair, secrets) ||
    (secrets.some(isShort) &&
      (holdsSecret(name, secrets) || (value !== undefined && holdsSecret(value, secrets))))
  if (!held) return named ? `${name}=${REDACTED_VALUE}` : undefined
  // A key sent as a bare name (`?KEY`) is hidden as well.
  const inName = holdsSecret(name, secrets)
  const inValue = named || (value !== undefined && holdsSecret(value, secrets))
  // In neither part alone: a key with `=` in it, sent across the pair's first `=`.
  if (!inName && !inValue) return REDACTED_VALUE
  const kept = (part: string, hidden: boolean) => (hidden ? REDACTED_VALUE : part)
  return value === undefined ? REDACTED_VALUE : `${kept(name, inName)}=${kept(value, inValue)}`
}

/**
 * A URL someone gave (an option, a flag) as a message or a file may show it: {@link redactQuery},
 * and credentials before the host replaced too.
 *
 * @example
 * redactUrl('https://user:pw@api.example.test/?token=t') // 'https://[redacted]@api.example.test/?token=[redacted]'
 * redactUrl('https://user:p/w@api.example.test') // 'https://[redacted]@api.example.test'
 */
export function redactUrl(url: string, secrets: readonly string[] = []): string {
  // The query first: the credentials run to the last `@`, which may be in the query.
  return redactQuery(url, secrets).replace(TYPED_USER_INFO, `$1${REDACTED_VALUE}@`)
}

/**
 * `scheme://` and what a URL as typed may hold as credentials: everything up to its last `@`. A
 * password may hold `/`, `?` or `#` unencoded, which ends the authority for a parser
 * (`redis://u:1/pw@h` parses as host `u`, port 1), so only the text says where it may end; an `@`
 * later in a URL without credentials is hidden too, which costs a message detail, never a secret.
 * Without `scheme://` (`default:pw@redis:6379`, `redis:/:pw@h`, `//:pw@h`, `:pw@h`) no parser finds
 * the credentials where they were meant: the scheme is `''` and everything up to the last `@` goes.
 */
export const TYPED_USER_INFO = /^((?:[a-z][a-z0-9+.-]*:\/\/)?)(.*)@/is

/**
 * Whether a URL someone gave carries credentials: a user or password the parser found, or an `@`
 * after its host, which may end a password with a `/` in it (`http://u:123/pw@host` parses as host
 * `u`, port 123): such a URL is refused, since it would be shown and logged.
 */
export function carriesCredentials(url: URL): boolean {
  return url.username !== '' || url.password !== '' || TYPED_USER_INFO.test(url.href)
}

function isSecretName(name: string): boolean {
  return SECRET_QUERY_PARAMETERS.has(
    decode(name)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, ''),
  )
}

/**
 * Whether a value holds one of `secrets` anywhere, as sent, percent-decoded or form-decoded (`+` a
 * space), leniently: a key among other text (`Bearer KEY`, `KEY+`, a stray `%` or a cut UTF-8
 * sequence after it) is a key all the same.
 */
export function holdsSecret(value: string, secrets: readonly string[]): boolean {
  if (secrets.length === 0) return false
  const forms = [value]
  if (value.includes('%')) forms.push(decodeLeniently(value))
  if (value.includes('+')) forms.push(decodeLeniently(value.replace(/\+/g, ' ')))
  let found = false
  for (const secret of secrets) for (const form of forms) found = contains(form, secret) || found
  return found
}

/**
 * Whether `secret` stands anywhere in `text`, in time that depends on the lengths alone: a
 * search that stops at the first character that differs (`includes`) would tell how much of a key
 * a guess got right. Each place's rolling hash is compared with the key's, and a place whose hash
 * matches is compared in constant time, so a long value costs one pass, not one per character.
 */
function contains(text: string, secret: string): boolean {
  const length = secret.length
  // A short key (`k1`) stands inside ordinary words (`?search=k1ng`): only a value that is the key
  // itself is one, or every query holding those letters would lose them.
  if (isShort(secret)) return text.length === length && equalInConstantTime(text, secret, 0, length)
  if (text.length < length) return false
  let wanted = 0
  let hash = 0
  // The weight of a place's first character in its hash: HASH_BASE^(length - 1).
  let first = 1
  for (let i = 0; i < length; i++) {
    wanted = (Math.imul(wanted, HASH_BASE) + secret.charCodeAt(i)) | 0
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0
    if (i > 0) first = Math.imul(first, HASH_BASE)
  }
  let found = false
  for (let at = 0; ; at++) {
    if (hash === wanted) found = equalInConstantTime(text, secret, at, at + length) || found
    if (at + length === text.length) return found
    const out = Math.imul(text.charCodeAt(at), first)
    hash = (Math.imul(hash - out, HASH_BASE) + text.charCodeAt(at + length)) | 0
  }
}

/** Whether a key is too short to be found inside other text (8 characters): only as a whole value or name. */
const isShort = (secret: string) => secret.length < 8

/** An odd multiplier for {@link contains}' hash, modulo 2^32. */
const HASH_BASE = 0x01000193

/**
 * Percent-decoded where it is percent-encoding: each run of `%XX` as UTF-8 (a broken sequence as
 * U+FFFD), a `%` that escapes nothing kept, where `decodeURIComponent` gives up on the whole value.
 */
function decodeLeniently(text: string): string {
  return text.replace(ESCAPES, (run) => {
    const bytes = new Uint8Array(run.length / 3)
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16)
    return UTF8.decode(bytes)
  })
}

const ESCAPES = /(?:%[0-9a-f]{2})+/gi
const UTF8 = new TextDecoder()

/** Percent-decoded, or as it is when that is not valid percent-encoding. */
function decode(text: string): string {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
