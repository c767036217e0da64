import type { Taxonomy } from './store.js'

/**
 * The canonical fixture export: JSON with two-space indents and a final newline. Golden digests
 * pin these bytes, and `taxonomy-mock export` writes exactly them.
 *
 * @example
 * writeFileSync('fixtures/taxonomy.json', toFixtureJson(createTaxonomy({ seed: 42 })))
 */
export function toFixtureJson(taxonomy: Taxonomy): string {
  return `${JSON.stringify(taxonomy.toFixture(), null, 2)}\n`
}
