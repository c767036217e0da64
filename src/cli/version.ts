import { readFileSync } from 'node:fs'

/** The package version, read from package.json two folders up (from src/cli or dist/cli). */
export function readVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
  return (JSON.parse(text) as { version: string }).version
}
