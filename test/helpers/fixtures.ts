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

/**
 * An array of `length` holes that counts the places read of it (`i in array`, `array[i]`): a check
 * that counts holes at once reads a few, one that walks them reads every one. A count, not a time,
 * so a busy machine cannot fail it.
 */
export function countingHoles(length: number): { array: unknown[]; placesRead: () => number } {
  let read = 0
  const isPlace = (key: string | symbol) => typeof key === 'string' && /^\d+$/.test(key)
  const array = new Proxy(new Array<unknown>(length), {
    has(target, key) {
      if (isPlace(key)) read++
      return Reflect.has(target, key)
    },
    get(target, key, receiver) {
      if (isPlace(key)) read++
      return Reflect.get(target, key, receiver)
    },
  })
  return { array, placesRead: () => read }
}
