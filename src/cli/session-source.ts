import { digestText, toCanonicalJson } from '../core/digest.js'
import { createTaxonomy, resolveSeed } from '../core/generate.js'
import { FixtureError, summarizeIssues } from '../core/fixture-error.js'
import { describeDataset } from '../core/identity.js'
import { patchTaxonomy, type TaxonomyPatch } from '../core/patch.js'
import { findTooDeep } from '../core/nesting.js'
import { toOneLine, toQuoted } from '../core/shown-text.js'
import { isPresetName, presetPatch } from '../core/presets.js'
import { formatReceived, resolveSize } from '../core/size.js'
import { quote } from '../core/field-name.js'
import type { Taxonomy } from '../core/store.js'
import { servedDigest, type ServedDataset } from '../http/dataset.js'
import { trustHintOf } from '../http/fetch-failure.js'
import { ADMIN_KEY_HEADER_NAME, SESSION_HEADER_NAME } from '../http/header-names.js'
import { NESTED_ORDERS } from '../http/options.js'
import { DATA_LIMITS } from '../http/session-data.js'
import { hideSecret } from '../http/session-client.js'
import { readTextWithin } from '../http/text-within.js'
import { loadDataFile } from './data-file.js'
import { isOptionError } from './option-flags.js'
import { RuntimeError } from './runtime-error.js'

/** Where a session's data is read: the mock's base URL, the session, and how to reach its admin API. */
export interface SessionSourceArgs {
  readonly from: string
  readonly session: string
  readonly adminKey: string | undefined
  /** The file the server serves, when it serves one: the session's patch sits on it. */
  readonly data: string | undefined
}

/** A session's data, rebuilt here, and the identity the server gave it. */
export interface SessionSource {
  readonly taxonomy: Taxonomy
  readonly dataset: ServedDataset
  /** Whether the session has a patch; without one its data is the server's as it is. */
  readonly patched: boolean
}

/** What the admin route's answer is read up to: a patch is at most 1 MiB of JSON. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024
const TIMEOUT_MS = 10_000

/**
 * Reads `GET /__admin/sessions/{id}/data` from a running mock and rebuilds the session's data: the
 * server's base data (generated from its seed and size, or the `--data` file, which must be the
 * one it serves) with the session's patch. The rebuilt data is checked against the digest the
 * server names, so a fixture is never written from data the server does not serve (another
 * version of the generator, another file). Every failure is a `RuntimeError` of one line.
 */
export async function readSessionSource(args: SessionSourceArgs): Promise<SessionSource> {
  const url = new URL(
    `__admin/sessions/${encodeURIComponent(args.session)}/data`,
    args.from.endsWith('/') ? args.from : `${args.from}/`,
  )
  const answer = await readAnswer(url, args.session, args.adminKey)
  const { patch, dataset } = answer
  const base = await rebuildBase(dataset, args.data, `${url.origin}${url.pathname}`)
  const patchDigest = patch === null ? undefined : digestText([toCanonicalJson(patch) ?? ''])
  const dataDigest = describeDataset(base).digest
  const matches = NESTED_ORDERS.some(
    (order) => servedDigest(dataDigest, order, patchDigest) === dataset.digest,
  )
  if (!matches) {
    throw new RuntimeError(
      `the data rebuilt from ${describeBase(dataset)} is not the data session ${toQuoted(args.session)} is served (digest ${dataset.digest}): is the server another version of taxonomy-mock?`,
    )
  }
  if (patch === null) return { taxonomy: base, dataset, patched: false }
  const where = `${url.origin}${url.pathname}`
  return { taxonomy: applyPatch(base, patch, dataset, where, args.session), dataset, patched: true }
}

/**
 * The session's data: the patch over the rebuilt data, or a `RuntimeError` of one line when it
 * does not apply (the server's data changed since, or another version made it).
 */
function applyPatch(
  base: Taxonomy,
  patch: unknown,
  dataset: ServedDataset,
  where: string,
  session: string,
): Taxonomy {
  try {
    return patchTaxonomy(base, resolvePatch(base, patch))
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error
    // The problem quotes the server's words: one line, cut as its refusals are.
    const problem = toOneLine(summarizeIssues(error.issues, error.issueCount).slice(0, 300))
    throw new RuntimeError(
      `the patch ${where} answered for session ${toQuoted(session)} does not apply to the data rebuilt from ${describeBase(dataset)}: ${problem}`,
    )
  }
}

interface DataAnswer {
  readonly patch: unknown
  readonly dataset: ServedDataset
}

async function readAnswer(
  url: URL,
  session: string,
  adminKey: string | undefined,
): Promise<DataAnswer> {
  const where = `${url.origin}${url.pathname}`
  // One bound for the answer whole: fetch's own abort does not end a body it already handed over.
  const signal = AbortSignal.timeout(TIMEOUT_MS)
  let response: Response
  try {
    response = await fetch(url, {
      headers: {
        accept: 'application/json',
        // The server reads the session from the path; an ingress that routes by session reads
        // the header, so the call reaches the replica that holds it (docs/deployment.md).
        [SESSION_HEADER_NAME]: session,
        ...(adminKey === undefined ? {} : { [ADMIN_KEY_HEADER_NAME]: adminKey }),
      },
      redirect: 'error',
      signal,
    })
  } catch (error) {
    const reason = reasonOf(error)
    throw new RuntimeError(`cannot reach ${where}: ${reason}${trustHintOf(reason)}`)
  }
  const text = await readLimited(response, signal, where)
  const body = parseJson(text)
  if (response.status !== 200) {
    // The server's own words, which may repeat the admin key it was sent, or hold a terminal's
    // escapes and line breaks: a URL that is no mock may send anything.
    const message =
      typeof body?.error === 'string'
        ? `: ${toOneLine(hideSecret(body.error, adminKey).slice(0, 300))}`
        : ''
    const hint = response.status === 403 ? " (pass the server's --admin-key)" : ''
    throw new RuntimeError(`${where} answered ${response.status}${message}${hint}`)
  }
  const dataset = body?.dataset as ServedDataset | undefined
  if (
    body === undefined ||
    !('patch' in body) ||
    typeof dataset?.digest !== 'string' ||
    typeof dataset.format !== 'string' ||
    // Both are quoted in messages: hex of a digest's length, as a taxonomy-mock sends them.
    !/^[0-9a-f]{1,64}$/.test(dataset.digest) ||
    (dataset.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(String(dataset.sha256)))
  )
    throw new RuntimeError(`${where} did not answer a session's data: is --from a taxonomy-mock?`)
  // What the server would refuse, before the digest walks it recursively.
  const deep = findTooDeep(body.patch, DATA_LIMITS.patchDepth)
  if (deep !== undefined)
    throw new RuntimeError(
      `${where} answered a patch nested more than ${DATA_LIMITS.patchDepth} levels deep (at ${deep}), which no taxonomy-mock takes`,
    )
  return { patch: body.patch, dataset }
}

/**
 * The answer's text, up to {@link MAX_ANSWER_BYTES} and until `signal` aborts: a URL that is no
 * mock may send anything, or send it a byte at a time for ever.
 */
async function readLimited(
  response: Response,
  signal: AbortSignal,
  where: string,
): Promise<string> {
  let text: string | undefined
  try {
    text = await readTextWithin({ body: response.body, signal }, MAX_ANSWER_BYTES)
  } catch (error) {
    throw new RuntimeError(`cannot read the answer of ${where}: ${reasonOf(error)}`)
  }
  if (text === undefined)
    throw new RuntimeError(`${where} answered more than ${MAX_ANSWER_BYTES} bytes`)
  return text
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The server's data without the session's patch: generated again, or the `--data` file. `where`
 * names the answer that named it.
 */
async function rebuildBase(
  dataset: ServedDataset,
  data: string | undefined,
  where: string,
): Promise<Taxonomy> {
  if (dataset.sha256 !== undefined) {
    if (data === undefined) {
      throw new RuntimeError(
        `the server serves a data file (sha256=${dataset.sha256}): pass that file with --data FILE`,
      )
    }
    const taxonomy = await loadDataFile(data)
    const { sha256 } = describeDataset(taxonomy)
    if (sha256 !== dataset.sha256) {
      throw new RuntimeError(
        `--data file ${toQuoted(data)} (sha256=${sha256}) is not the file the server serves (sha256=${dataset.sha256})`,
      )
    }
    return taxonomy
  }
  if (dataset.seed === undefined || dataset.size === undefined)
    throw new RuntimeError(`cannot rebuild the server's data: its dataset names no seed and size`)
  const generation = toGeneration(dataset, where)
  if (data !== undefined) {
    throw new RuntimeError(
      `the server serves generated data (${describeBase(dataset)}), not a file: drop --data`,
    )
  }
  // As large as the server names, up to the generator's bounds (docs/reference.md says the cost).
  return createTaxonomy(generation)
}

/**
 * The seed and size a dataset names, judged as the `seed` and `size` options are, before anything
 * is generated: a URL that is no mock may name anything.
 */
function toGeneration(dataset: ServedDataset, where: string) {
  const cannot = `${where} answered a dataset taxonomy-mock cannot rebuild: its`
  // A taxonomy-mock names its size in text: an object would be taken for counts and generated.
  if (typeof dataset.size !== 'string') {
    throw new RuntimeError(
      `${cannot} size must be 'small', 'medium', 'large' or counts such as "5/30/250/4500"; received ${formatReceived(dataset.size)}`,
    )
  }
  const size = toSize(dataset.size)
  try {
    const seed = resolveSeed(dataset.seed)
    const counts = resolveSize(size)
    // A preset by its name, as the server made it.
    return {
      seed,
      size: typeof size === 'string' ? (size as 'small' | 'medium' | 'large') : counts,
    }
  } catch (error) {
    if (!isOptionError(error)) throw error
    const level = error.option.startsWith('size.') ? ` (${error.option.slice('size.'.length)})` : ''
    const named = error.option === 'seed' ? 'seed' : `size ${quote(dataset.size)}${level}`
    throw new RuntimeError(`${cannot} ${named} ${error.requirement}`)
  }
}

/**
 * `small`, `medium`, `large`, or counts `domains/disciplines/sub-disciplines/topics`; anything
 * else as it came, for `resolveSize` to refuse.
 */
function toSize(size: string): unknown {
  if (!/^\d+\/\d+\/\d+\/\d+$/.test(size)) return size
  const [domains, disciplines, subDisciplines, topics] = size.split('/').map(Number)
  return { domains, disciplines, subDisciplines, topics }
}

function resolvePatch(base: Taxonomy, patch: unknown): TaxonomyPatch {
  const preset = (patch as { preset?: unknown }).preset
  return isPresetName(preset) ? presetPatch(base, preset) : (patch as TaxonomyPatch)
}

function describeBase(dataset: ServedDataset): string {
  return dataset.sha256 !== undefined
    ? `sha256=${dataset.sha256}`
    : `seed ${dataset.seed}, size ${dataset.size}`
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  if ((error as Error).name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`
  return cause?.code ?? cause?.message ?? (error as Error).message
}
