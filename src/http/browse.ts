import type { Taxonomy } from '../core/store.js'
import type { FixtureDomain } from '../core/types.js'
import { showKeys } from './auth.js'
import { DEFAULT_API_KEY, type ResolvedOptions } from './options.js'

/**
 * The browse pages: what a newcomer opens first to find slugs (the API has no list endpoint).
 * Plain HTML, no scripts; every name from the data is escaped, since fixtures are user input.
 */

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font:13px/1.4 ui-monospace,monospace;background:#f4f4f4;border-radius:4px}
code{padding:.1em .3em}pre{padding:1rem;overflow:auto}h2{margin-top:2rem}ul{padding-left:1.2rem}
li{margin:.15rem 0}.slug{color:#666;font-size:13px}a{color:#0645ad}`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`
}

function link(collection: 'disciplines' | 'sub_disciplines', record: FixtureDomain): string {
  const href = `/browse/${collection}/${encodeURIComponent(record.slug)}`
  return `<a href="${escapeHtml(href)}">${escapeHtml(record.name)}</a> <span class="slug">${escapeHtml(record.slug)}</span>`
}

/** `GET /`: every domain with its disciplines and their sub-disciplines, names and slugs. */
export function renderIndexPage(taxonomy: Taxonomy, options: ResolvedOptions): string {
  const { shown, curlKey } = showKeys(options.apiKeys, DEFAULT_API_KEY)
  const first = taxonomy.disciplines[0]
  const domains = taxonomy.domains
    .map((domain) => {
      const disciplines = taxonomy
        .disciplinesOf(domain)
        .map((discipline) => {
          const subs = taxonomy
            .subDisciplinesOf(discipline)
            .map((sub) => `<li>${link('sub_disciplines', sub)}</li>`)
            .join('')
          return `<li>${link('disciplines', discipline)}<ul>${subs}</ul></li>`
        })
        .join('\n')
      return `<h2>${escapeHtml(domain.name)} <span class="slug">${escapeHtml(domain.slug)}</span></h2>\n<ul>${disciplines}</ul>`
    })
    .join('\n')
  const seed = taxonomy.seed === null ? 'none (loaded or patched data)' : String(taxonomy.seed)
  const curl = first
    ? `<pre>curl -H 'Authorization: Bearer ${escapeHtml(curlKey)}' {this server}/api/v2/disciplines/${escapeHtml(encodeURIComponent(first.slug))}</pre>`
    : ''
  return page(
    'taxonomy-mock',
    `<h1>taxonomy-mock</h1>
<p>Seed <code>${escapeHtml(seed)}</code>: ${taxonomy.domains.length} domains, ${taxonomy.disciplines.length} disciplines, ${taxonomy.subDisciplines.length} sub-disciplines, ${taxonomy.topics.length} topics. Accepted key: <code>${escapeHtml(shown.join(', '))}</code>.</p>
<p>The API needs the key; these pages do not. Each link shows the JSON the API returns for that record.</p>
${curl}
${domains}`,
  )
}

/** A record's page: the JSON body the API returns for it, pretty-printed, and a curl for it. */
export function renderRecordPage(
  collection: 'disciplines' | 'sub_disciplines',
  record: FixtureDomain,
  apiBody: Uint8Array,
  options: ResolvedOptions,
): string {
  const { curlKey } = showKeys(options.apiKeys, DEFAULT_API_KEY)
  const json = JSON.stringify(JSON.parse(new TextDecoder().decode(apiBody)), null, 2)
  const path = `/api/v2/${collection}/${encodeURIComponent(record.slug)}`
  return page(
    `${record.name} · taxonomy-mock`,
    `<p><a href="/">All records</a></p>
<h1>${escapeHtml(record.name)}</h1>
<p><code>GET ${escapeHtml(path)}</code> answers:</p>
<pre id="api-json">${escapeHtml(json)}</pre>
<pre>curl -H 'Authorization: Bearer ${escapeHtml(curlKey)}' {this server}${escapeHtml(path)}</pre>`,
  )
}
