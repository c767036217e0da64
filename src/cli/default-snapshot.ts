import { readFileSync } from 'node:fs'
import { offerSnapshot } from '../core/generate.js'

/**
 * The build's snapshot of the default dataset (scripts/bundle.mjs), beside the CLI's file in
 * dist/cli; in a single executable, its asset of that name (scripts/build-binary.mjs). Not there
 * when the CLI runs from its sources: the dataset is then generated, as any other seed or size is.
 */
const SNAPSHOT = 'default-dataset.json'

/**
 * Offers the default dataset's snapshot, read when that dataset is first asked for instead of
 * generating it: the same records, a few milliseconds of CPU to read where generating the levels
 * above the topics and walking the topics' stream took about 30 (start-up; bench/README.md).
 */
export function offerDefaultSnapshot(): void {
  offerSnapshot({}, () => {
    try {
      return readFileSync(new URL(`./${SNAPSHOT}`, import.meta.url), 'utf8')
    } catch (error) {
      // Asked only when there is no file: loading `node:sea` is work the npm package never needs.
      const sea = process.getBuiltinModule?.('node:sea')
      if (sea?.isSea()) return sea.getAsset(SNAPSHOT, 'utf8')
      throw error
    }
  })
}
