import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { HELP } from '../../src/cli/help.js'
import { KINDS, kindSpec, type ScenarioKind } from '../../src/http/kinds.js'
import { OPENAPI_DOCUMENT } from '../../src/http/openapi.js'
import { PRISM_CODES } from '../../src/http/prefer.js'
import { createResolver } from '../../src/http/resolver.js'
import { parseScenario, SCENARIO_KINDS } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { resolveNow } from '../helpers/transports.js'

const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

interface OpenApiJson {
  paths: Record<string, { get: { parameters: { name: string; description: string }[] } }>
  components: { schemas: Record<string, { properties: Record<string, { enum?: unknown[] }> }> }
}

function answer(kind: ScenarioKind, headers: Readonly<Record<string, string>>) {
  const resolver = createResolver({
    taxonomy,
    scenario: { kind, ...(kindSpec(kind).answer === 'usual' ? { delay: 7 } : {}) },
  })
  return resolveNow(resolver, { method: 'GET', url: path, header: (name) => headers[name] })
}

describe.each(SCENARIO_KINDS.map((kind) => [kind] as const))('the %s row', (kind) => {
  const spec = kindSpec(kind)

  it('is read by --help, the OpenAPI document and the scenario parser', () => {
    expect(HELP.replace(/\s+/g, ' ')).toContain(kind)
    const document = JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)) as OpenApiJson
    const prefer = document.paths['/api/v2/disciplines/{slug}']!.get.parameters.find(
      (parameter) => parameter.name === 'Prefer',
    )!
    expect(prefer.description).toContain(kind)
    expect(document.components.schemas.JournalEntry!.properties.scenario!.enum).toContain(kind)
    expect(parseScenario({ kind, delay: 1 }).kind).toBe(kind)
    if (spec.preferCode !== undefined) expect(PRISM_CODES.get(spec.preferCode)).toBe(kind)
  })

  it('has its own test file, which replays it through every transport (test/kinds/replay.ts)', () => {
    expect(existsSync(new URL(`../kinds/${kind}.test.ts`, import.meta.url))).toBe(true)
  })

  it('applies in its phase of the order of checks', () => {
    const keyed = answer(kind, AUTH)
    const keyless = answer(kind, {})
    switch (spec.phase) {
      case 'before-key':
        if (spec.answer === 'usual') {
          expect([keyed.status, keyed.delay, keyless.status, keyless.delay]).toEqual([
            200, 7, 401, 7,
          ])
        } else {
          expect(keyless).toEqual(keyed)
          expect(keyed.status).not.toBe(200)
        }
        break
      case 'after-key':
        expect(keyless.status).toBe(401)
        expect(keyed.status).not.toBe(200)
        break
      case 'after-lookup':
        expect(keyless.status).toBe(401)
        break
    }
  })
})

it('lists every kind once, in table order', () => {
  expect(SCENARIO_KINDS).toEqual(Object.keys(KINDS))
})

/** The kinds named in the first column of a page's scenario table, in its order. */
function kindsInTable(page: string): string[] {
  const text = readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8')
  const table = text.slice(text.search(/^\| `unauthorized` \|/m)).split(/\n(?!\|)/)[0]!
  return table
    .split('\n')
    .flatMap((row) => [...row.split('|')[1]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!))
}

it.each(['README.md', 'docs/scenarios.md'])(
  "%s's scenario table lists every row of the kind table, in its order",
  (page) => {
    expect(kindsInTable(page)).toEqual(SCENARIO_KINDS)
  },
)
