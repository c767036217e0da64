import { createTaxonomy } from '../../src/core/generate.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { spawnCli } from './cli.js'

const URL_LINE = /^taxonomy-mock listening on (http:\/\/127\.0\.0\.1:\d+) /
export const auth = { headers: { authorization: 'Bearer taxonomy-mock-key' } }
/** The small seed-42 dataset, and the same with a discipline `cs` added: which one is served shows in one request. */
export const base = createTaxonomy({ seed: 42, size: 'small' })
export const patched = patchTaxonomy(base, {
  disciplines: [{ name: 'Computer Science', slug: 'cs', domain_ids: [base.domains[0]!.id] }],
})

/** The CLI serving `file` with `--watch`, once it prints its URL. */
export async function startWatching(file: string) {
  const run = spawnCli(['--port', '0', '--quiet', '--data', file, '--watch'])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  return { run, url }
}
