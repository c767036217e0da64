import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadTaxonomy } from '../../src/core/load.js'
import type { Taxonomy } from '../../src/core/store.js'
import { FIXTURE_FORMAT } from '../../src/core/types.js'

/** The absolute path of a file under `fixtures/`. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url))
}

/** The text of a file under `fixtures/`. */
export function readFixture(name: string): string {
  return readFileSync(fixturePath(name), 'utf8')
}

/** A deep, mutable copy of a file under `fixtures/`, for tests that break one field. */
export function cloneFixture(name = 'minimal.json'): Record<string, any> {
  return JSON.parse(readFixture(name))
}

/** Data with no record at any level: every lookup is a miss. */
export function emptyTaxonomy(): Taxonomy {
  return loadTaxonomy({
    format: FIXTURE_FORMAT,
    seed: null,
    domains: [],
    disciplines: [],
    sub_disciplines: [],
    topics: [],
  })
}
