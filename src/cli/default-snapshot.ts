import { readFileSync } from 'node:fs'
import { offerSnapshot } from '../core/generate.js'

/**
 * The build's snapshot of the default dataset (scripts/bundle.mjs), beside the CLI's file in
 * dist/cli. Not there when the CLI runs from its sources or as a single executable: the dataset is
 * then generated, as any other seed or size is.
 */
const SNAPSHOT = new URL('./default-dataset.json', import.meta.url)

/**
 * Offers the default dataset's snapshot, read when that dataset is first asked for instead of
 * generating it: the same records, a few milliseconds of CPU to read where generating the levels
 * above the topics and walking the topics' stream took about 30 (start-up; bench/README.md).
 */
export function offerDefaultSnapshot(): void {
  offerSnapshot({}, () => readFileSync(SNAPSHOT, 'utf8'))
}
