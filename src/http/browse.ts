import { findGeneration, recordCountOf } from '../core/generate.js'
import { TaxonomyOverlay } from '../core/overlay.js'
import { SIZES, type SizeCounts } from '../core/size.js'
import type { Taxonomy, TaxonomyView } from '../core/store.js'
import type { FixtureRecord } from '../core/types.js'
import { SESSION_HEADER_NAME } from './header-names.js'
import { showKeys } from './shown-keys.js'
import { DEFAULT_API_KEY, type ResolvedOptions } from './options.js'
import {
  ENDPOINT_LIST,
  ENDPOINTS,
  noOtherRows,
  recordsInOrder,
  type Collection,
  type Endpoint,
} from './endpoints.js'

/**
 * The browse pages: what a newcomer opens first to find slugs (the API has no list endpoint).
 * Plain HTML, no scripts; every name from the data is escaped, since fixtures are user input.
 */

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px/1.4 ui-monospace,monospace;background:#f4f4f4;border-radius:4px}
code{padding:.1em .3em}pre{padding:1rem;overflow:auto}h2{margin-top:2rem}ul{padding-left:1.2rem}
li{margin:.15rem 0}.slug{color:#666;font-size:13px}a{color:#0645ad}`

/** The index page stops listing at about this many characters, and says what it left out. */
const INDEX_BUDGET = 2_000_000
/** Sub-disciplines listed under one discipline on the index; its own page lists them all. */
export const INDEX_SUBS_PER_DISCIPLINE = 200
/** A record page shows at most this much of the API's JSON; the API itself always answers whole. */
const RECORD_JSON_BUDGET = 1_000_000

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&#38;',
  '<': '&#60;',
  '>': '&#62;',
  '"': '&#34;',
  "'": '&#39;',
}

/** The characters that set text direction (marks, embeddings, overrides, isolates). */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * JSON text with its direction controls as escapes, which mean the same characters: one left
 * open in a string would reverse the rest of its line (all of a compact answer) on the page.
 */
function withVisibleBidi(json: string): string {
  return json.replace(
    BIDI_CONTROLS,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!)
}

/**
 * A name from the data as page text, in its own bidi isolate: a right-to-left override it leaves
 * open (`\u202e`) ends with it, rather than reversing the slug shown beside it.
 */
function nameHtml(name: string): string {
  return `<bdi>${escapeHtml(name)}</bdi>`
}

/** "1 domain", "2 domains". */
function counted(count: number, noun: string, plural: string): string {
  return `${count} ${count === 1 ? noun : plural}`
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`
}

/**
 * Which dataset the pages show, as HTML: the same slug has another id in another seed or size. The
 * seed and size for generated data; for loaded data, the fixture's format and the seed it records.
 */
function describeDataset(taxonomy: Taxonomy): string {
  const generation = findGeneration(taxonomy)
  if (generation !== undefined) {
    const preset = presetOf(generation.counts)
    const size = preset === undefined ? 'a custom size' : `size <code>${escapeHtml(preset)}</code>`
    return `generated from seed <code>${generation.seed}</code>, ${size}`
  }
  const { format, seed } = taxonomy.toFixture()
  const recorded = seed === null ? 'no seed' : `seed <code>${seed}</code> as the fixture records it`
  return `loaded from a fixture of format <code>${escapeHtml(format)}</code>, ${recorded}`
}

/**
 * How many topics the data has, none of a generated dataset's built (a million at `large`, 1.2 s
 * and 340 MB before the first index page): a session's patched data's from its base's count.
 */
function topicTotal(taxonomy: TaxonomyView): number {
  return taxonomy instanceof TaxonomyOverlay
    ? taxonomy.topicCount()
    : recordCountOf(taxonomy, 'topics')
}

function presetOf(counts: SizeCounts): string | undefined {
  const same = (preset: SizeCounts) =>
    (Object.keys(preset) as (keyof SizeCounts)[]).every((level) => preset[level] === counts[level])
  return (Object.keys(SIZES) as (keyof typeof SIZES)[]).find((name) => same(SIZES[name]))
}

/** The query that keeps a page within a session's data (`?session=t1`), or nothing. */
function inSession(session: string | undefined): string {
  return session === undefined ? '' : `?session=${encodeURIComponent(session)}`
}

/** Where the data comes from, and the session whose patch is over it. */
function describeShown(taxonomy: Taxonomy, session: string | undefined): string {
  const data = describeDataset(taxonomy)
  return session === undefined
    ? data
    : `${data}, with the patch of session <code>${escapeHtml(session)}</code>`
}

/** A curl for a path: with the session's header when the page shows a session's data. */
function curlFor(key: string, path: string, session: string | undefined): string {
  const header = session === undefined ? '' : `-H '${SESSION_HEADER_NAME}: ${escapeHtml(session)}' `
  return `<pre>curl -H 'Authorization: Bearer ${escapeHtml(key)}' ${header}{this server}${path}</pre>`
}

function link({ collection }: Endpoint, record: FixtureRecord, session?: string): string {
  const href = `/browse/${collection}/${encodeURIComponent(record.slug)}${inSession(session)}`
  return `<a href="${escapeHtml(href)}">${nameHtml(record.name)}</a> <span class="slug">${escapeHtml(record.slug)}</span>`
}

/**
 * `GET /`: every domain with its disciplines and their sub-disciplines, names and slugs. A
 * discipline under several domains lists its sub-disciplines under the first only, at most
 * {@link INDEX_SUBS_PER_DISCIPLINE} of them, and past
 * {@link INDEX_BUDGET} characters the page stops and counts what it left out, so the page costs
 * time and memory linear in the data and bounded, whatever a `--data` file holds.
 */
export function renderIndexPage(
  taxonomy: TaxonomyView,
  options: ResolvedOptions,
  session?: string,
): string {
  // The index is a tree of the levels: a new endpoint fails to compile here until it has a place.
  const { disciplines, sub_disciplines: subDisciplines, ...unplaced } = ENDPOINTS
  noOtherRows(unplaced)
  // A generated dataset's first discipline written alone, not the whole level.
  const [first] = recordsInOrder(disciplines, taxonomy)
  const { shown, curlKey } = showKeys(options.apiKeys, DEFAULT_API_KEY, 'page')
  const parts: string[] = []
  let size = 0
  let full = false
  const add = (html: string): boolean => {
    if (full || size + html.length > INDEX_BUDGET) return !(full = true)
    parts.push(html)
    size += html.length
    return true
  }
  const listedUnder = new Map<FixtureRecord, FixtureRecord>()
  let shownRecords = 0
  for (const domain of taxonomy.domains) {
    if (
      !add(
        `<h2>${nameHtml(domain.name)} <span class="slug">${escapeHtml(domain.slug)}</span></h2>\n<ul>`,
      )
    )
      break
    for (const discipline of taxonomy.disciplinesOf(domain)) {
      const home = listedUnder.get(discipline)
      if (home !== undefined) {
        if (
          !add(
            `<li>${link(disciplines, discipline, session)} <span class="slug">(sub-disciplines under ${nameHtml(home.name)})</span></li>\n`,
          )
        )
          break
        continue
      }
      listedUnder.set(discipline, domain)
      if (!add(`<li>${link(disciplines, discipline, session)}<ul>`)) break
      shownRecords++
      const subs = taxonomy.subDisciplinesOf(discipline)
      for (const sub of subs.slice(0, INDEX_SUBS_PER_DISCIPLINE)) {
        if (!add(`<li>${link(subDisciplines, sub, session)}</li>`)) break
        shownRecords++
      }
      if (subs.length > INDEX_SUBS_PER_DISCIPLINE) {
        add(
          `<li class="slug">and ${(subs.length - INDEX_SUBS_PER_DISCIPLINE).toLocaleString('en')} more: see the discipline's page</li>`,
        )
      }
      add('</ul></li>\n')
    }
    add('</ul>\n')
  }
  if (full) {
    const total = ENDPOINT_LIST.reduce(
      (sum, endpoint) => sum + recordCountOf(taxonomy, endpoint.startOption),
      0,
    )
    const plurals = ENDPOINT_LIST.map((endpoint) => endpoint.plural).join(' and ')
    parts.push(
      `</ul></li></ul>\n<p id="truncated">The list stops here, at ${INDEX_BUDGET.toLocaleString('en')} characters: about ${Math.max(0, total - shownRecords).toLocaleString('en')} ${plurals} are not shown. Each API answer names the slugs of the records related to it.</p>`,
    )
  }
  const curl = first
    ? curlFor(
        curlKey,
        `/api/v2/${disciplines.collection}/${escapeHtml(encodeURIComponent(first.slug))}`,
        session,
      )
    : ''
  return page(
    'taxonomy-mock',
    `<h1>taxonomy-mock</h1>
<p>Data <span id="dataset">${describeShown(options.taxonomy, session)}</span>: ${counted(taxonomy.domains.length, 'domain', 'domains')}, ${counted(recordCountOf(taxonomy, disciplines.startOption), 'discipline', 'disciplines')}, ${counted(recordCountOf(taxonomy, subDisciplines.startOption), 'sub-discipline', 'sub-disciplines')}, ${counted(topicTotal(taxonomy), 'topic', 'topics')}. Accepted key: <code>${escapeHtml(shown.join(', '))}</code>.</p>
<p>The API needs the key; these pages do not. Each link shows the JSON the API returns for that record.</p>
${curl}
${parts.join('')}`,
  )
}

/** A record's page: the JSON body the API returns for it, pretty-printed (its start if huge), and a curl for it. */
export function renderRecordPage(
  collection: Collection,
  record: FixtureRecord,
  apiBody: Uint8Array,
  options: ResolvedOptions,
  session?: string,
): string {
  const { curlKey } = showKeys(options.apiKeys, DEFAULT_API_KEY, 'page')
  // A record with tens of thousands of children has an API answer of many MB: show its start.
  const json = withVisibleBidi(
    apiBody.byteLength <= RECORD_JSON_BUDGET
      ? JSON.stringify(JSON.parse(new TextDecoder().decode(apiBody)), null, 2)
      : `${new TextDecoder().decode(apiBody.subarray(0, RECORD_JSON_BUDGET))}\n… (the first ${RECORD_JSON_BUDGET.toLocaleString('en')} of ${apiBody.byteLength.toLocaleString('en')} bytes; the API answers in full)`,
  )
  const path = `/api/v2/${collection}/${encodeURIComponent(record.slug)}`
  return page(
    // A title holds no markup: U+2068 and U+2069 (first-strong and pop isolate) do what <bdi> does,
    // once the name's own direction controls are out (its U+2069 would end the isolate early).
    `\u2068${record.name.replace(BIDI_CONTROLS, '')}\u2069 · taxonomy-mock`,
    `<p><a href="/${inSession(session)}">All records</a> · data <span id="dataset">${describeShown(options.taxonomy, session)}</span></p>
<h1>${nameHtml(record.name)}</h1>
<p><code>GET ${escapeHtml(path)}</code> answers:</p>
<pre id="api-json">${escapeHtml(json)}</pre>
${curlFor(curlKey, escapeHtml(path), session)}`,
  )
}
