import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

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
