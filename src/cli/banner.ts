import { DEFAULT_SEED } from '../core/generate.js'
import type { Taxonomy } from '../core/store.js'
import { toShownJson, toShownName } from '../core/shown-text.js'
import {
  ENDPOINT_LIST,
  findEndpointOfLevel,
  findExamples,
  type Endpoint,
} from '../http/endpoints.js'
import { showKeys } from '../http/shown-keys.js'
import { DEFAULT_API_KEY, type ResolvedOptions } from '../http/options.js'
import type { RequestLogEntry } from '../server/options.js'
import type { ServerCertificate } from '../server/tls.js'
import type { ServeArgs } from './args.js'
import { shellWord } from './shell-word.js'

const EXAMPLES = 3

/**
 * The first line the server prints once listening, before its data is built: tools wait for it.
 * Only the documented default key is printed whole; other keys are masked like everywhere else.
 */
export function formatUrlLine(
  url: string,
  apiKeys: ResolvedOptions['apiKeys'],
  args: ServeArgs,
): string {
  const { shown: keys } = showKeys(apiKeys, DEFAULT_API_KEY, 'terminal')
  const data =
    args.data !== undefined
      ? `data ${toShownName(args.data)}`
      : args.upstream === undefined
        ? `seed ${args.seed ?? DEFAULT_SEED}, size ${args.size ?? 'medium'}`
        : 'no data'
  // The upstream's URL holds no credentials (checked), and its key is never shown, not even in a path.
  const source =
    args.upstream === undefined
      ? data
      : `${data}; upstream ${args.upstream.shownTarget}, on miss ${args.upstream.onMiss}`
  return `taxonomy-mock listening on ${url} (${source}; key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')})`
}

/**
 * The names a certificate is valid for. Clients match the host name against its subjectAltName
 * only (never the subject's CN), so one without it is refused for every name: say so, not `for `.
 */
function forNames(names: readonly string[]): string {
  return names.length > 0
    ? `for ${names.join(', ')}`
    : 'for no name: it has no subjectAltName, so clients refuse it for every host (openssl req -addext "subjectAltName=DNS:localhost,IP:127.0.0.1")'
}

/**
 * Right after the URL line over HTTPS (with `--quiet` too: a client needs them to connect): what
 * the certificate is valid for, where `--tls` wrote it for clients to trust, and the two hashes
 * that pin it without a file.
 */
export function formatTlsLines(
  certificate: ServerCertificate,
  caFile: string | undefined,
): string[] {
  return [
    `  certificate:     ${caFile === undefined ? 'from --tls-cert' : 'self-signed'}, ${forNames(certificate.names)}`,
    ...(caFile === undefined
      ? []
      : [`  trust:           ${caFile} (curl --cacert FILE, NODE_EXTRA_CA_CERTS=FILE)`]),
    `  sha256:          ${certificate.fingerprint256}`,
    `  spki sha256:     ${certificate.spkiSha256} (chromium --ignore-certificate-errors-spki-list)`,
  ]
}

/**
 * The rest of the banner, once the data is there (none with `--quiet`): a curl to paste (trusting
 * `caFile`, the certificate `--tls` wrote), example slugs, since the API has no list endpoint, and
 * `dataset`, the `X-Taxonomy-Mock-Dataset` every answer carries.
 */
export function formatBannerDetails(
  url: string,
  taxonomy: Taxonomy,
  apiKeys: ResolvedOptions['apiKeys'],
  args: ServeArgs,
  dataset: string,
  caFile?: string,
): string[] {
  if (args.quiet) return []
  const { curlKey } = showKeys(apiKeys, DEFAULT_API_KEY, 'terminal')
  // Quoted as a shell needs it: the temp folder's path may hold a space (Windows' %TEMP%).
  const trust = caFile === undefined ? '' : `--cacert ${shellWord(caFile)} `
  const examples = ENDPOINT_LIST.map((endpoint) => ({
    endpoint,
    slugs: findExamples(endpoint, taxonomy, EXAMPLES)?.map((record) => record.slug),
  }))
  const [{ endpoint: first, slugs: firstSlugs }] = examples as [(typeof examples)[number]]
  return [
    `  try:             curl ${trust}-H 'Authorization: Bearer ${curlKey}' ${url}/api/v2/${first.collection}/${firstSlugs?.[0] ?? 'SLUG'}`,
    ...examples.map(
      ({ endpoint, slugs }) =>
        `  ${`${endpoint.collection}:`.padEnd(17)}${slugs === undefined ? listedIn(endpoint) : slugs.length > 0 ? slugs.join(', ') : args.upstream ? '(none in the data: asked of the upstream)' : '(none)'}`,
    ),
    `  dataset:         ${dataset}`,
    `  browse:          ${url}/ (every record, linked to its JSON)  also: ${url}/__health  ${url}/openapi.json`,
    `  scenarios:       ${args.scenario ? `${toShownJson(args.scenario)} for the default session; ` : ''}per request Prefer: scenario=unavailable; per session PUT ${url}/__admin/sessions/{id}/scenario`,
    `  stop:            Ctrl+C (or SIGTERM)`,
  ]
}

/**
 * Where to find the slugs of a level not built yet (a generated dataset's topics): listing them
 * would build them all, so the banner points to the answers that name them.
 */
function listedIn(endpoint: Endpoint): string {
  const parent = findEndpointOfLevel(endpoint.parents.level)
  return parent === undefined
    ? '(built on first use)'
    : `(built on first use: each ${parent.noun}'s answer lists its ${endpoint.plural})`
}

/**
 * One log line per request: method, path, status, milliseconds. Never headers, and the server hands
 * the path with secret query values redacted, so never keys.
 */
export function formatLogLine(entry: RequestLogEntry): string {
  // Tenths by integer arithmetic: `toFixed` costs as much as the rest of the line.
  const tenths = Math.round(entry.ms * 10)
  const { fault } = entry
  // A fault that sent no answer stands in the status's place; one that sent a status follows the time.
  const status = fault !== undefined && entry.status === 0 ? fault : entry.status
  const line = `${entry.method} ${entry.path} ${status} ${Math.trunc(tenths / 10)}.${tenths % 10}ms`
  return fault === undefined || entry.status === 0 ? line : `${line} (${fault})`
}
