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
  'xapikey',
  'subscriptionkey',
  'adminkey',
  'privatekey',
  'accesskey',
  'secretkey',
  'token',
  'apitoken',
  'oauthtoken',
  'accesstoken',
  'authtoken',
  'idtoken',
  'refreshtoken',
  'sessiontoken',
  'auth',
  'authorization',
  'bearer',
  'password',
  'passwd',
  'secret',
  'clientsecret',
  'signature',
  'sig',
])

/**
 * A URL or request target with the value of each secret parameter of its query (or fragment)
 * replaced by `[redacted]`, the name kept: a parameter named in {@link SECRET_QUERY_PARAMETERS},
 * or any whose value (as sent, percent- or form-decoded) is one of `secrets`, which is hidden as a
 * bare name too. Anything else is kept as it was; a target without `?` or `#` is returned as it
 * is, so the common case costs two searches.
 */
export type QueryRedactor = (target: string) => string

/**
 * The redactor for a mock's options: its API keys (none for `anyKey`) and its admin key are the
 * values hidden under any name. The journal, the HAR file and the request log all use it.
 *
 * @example
 * createQueryRedactor({ apiKeys: ['k1'], adminKey: undefined })('/api/v2/x?api_key=a&q=k1&page=2')
 * // '/api/v2/x?api_key=[redacted]&q=[redacted]&page=2'
 */
export function createQueryRedactor(
  options: Pick<ResolvedOptions, 'apiKeys' | 'adminKey'>,
): QueryRedactor {
  const secrets = [
    ...(options.apiKeys === 'any' ? [] : options.apiKeys),
    ...(options.adminKey === undefined ? [] : [options.adminKey]),
  ]
  return (target) =>
    redactQuery(
      // A client's absolute-form target: its userinfo is credentials, whatever part is the key.
      target.charCodeAt(0) === 0x2f ? target : target.replace(USERINFO, `$1${REDACTED_VALUE}@`),
      secrets,
    )
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
  // A key sent as a bare name (`?KEY`) is hidden as well.
  if (isSecretValue(name, secrets)) return `${REDACTED_VALUE}${pair.slice(name.length)}`
  if (equals === -1 || equals === pair.length - 1) return undefined
  if (isSecretName(name) || isSecretValue(pair.slice(equals + 1), secrets))
    return `${pair.slice(0, equals + 1)}${REDACTED_VALUE}`
  return undefined
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

/** Whether a value is one of `secrets` as sent, percent-decoded, or form-decoded (`+` a space). */
function isSecretValue(value: string, secrets: readonly string[]): boolean {
  if (secrets.length === 0) return false
  const forms = [value, decode(value), decode(value.replace(/\+/g, ' '))]
  let found = false
  // Every comparison made, each in constant time: timing tells nothing of a key.
  for (const secret of secrets)
    for (const form of forms) found = equalInConstantTime(form, secret) || found
  return found
}

/** Percent-decoded, or as it is when that is not valid percent-encoding. */
function decode(text: string): string {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
