import { existsSync, readFileSync } from 'node:fs'
import ts from 'typescript'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { ServeArgs } from '../../src/cli/args.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import {
  KIND_OPTION_NAMES,
  kindOptionSpec,
  readersOf,
  type KindOption,
  type KindOptionSpec,
  type KindOptionValues,
} from '../../src/http/kind-options.js'
import { KINDS, kindSpec, type ScenarioKind } from '../../src/http/kinds.js'
import { VALUE_TYPES, valueType } from '../../src/http/option-values.js'
import { parsePrefer, PRISM_CODES } from '../../src/http/prefer.js'
import { toHar } from '../../src/http/request-journal.js'
import { createResolver } from '../../src/http/resolver.js'
import { ScenarioState } from '../../src/http/scenario-state.js'
import { parseScenario, SCENARIO_KINDS, type Scenario } from '../../src/http/scenario.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { resolveNow } from '../helpers/transports.js'

const path = `/api/v2/disciplines/${taxonomy.disciplines[0]!.slug}`

interface OpenApiJson {
  paths: Record<string, { get: { parameters: { name: string; description: string }[] } }>
  components: {
    schemas: Record<
      string,
      {
        properties: Record<string, { enum?: unknown[] }>
        oneOf: { properties?: Record<string, { description?: string }> }[]
      }
    >
  }
}

/**
 * The modules built from the tables as they load (the CLI's flags and help, the OpenAPI document
 * and its validator), loaded by the tests that read them: a row they cannot be built from fails
 * those tests, while the others still say what the row lacks.
 */
async function derived() {
  const [{ HELP }, { parseCliArgs }, { OPTION_FLAGS }, { openApiDocument }, { ajv }] =
    await Promise.all([
      import('../../src/cli/help.js'),
      import('../../src/cli/args.js'),
      import('../../src/cli/option-flags.js'),
      import('../../src/http/openapi.js'),
      import('../helpers/openapi-schemas.js'),
    ])
  const document = JSON.parse(JSON.stringify(openApiDocument())) as OpenApiJson
  const prefer = document.paths['/api/v2/disciplines/{slug}']!.get.parameters.find(
    (parameter) => parameter.name === 'Prefer',
  )!
  return { HELP, parseCliArgs, OPTION_FLAGS, ajv, document, prefer }
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

  it('is read by --help, the OpenAPI document and the scenario parser', async () => {
    const { HELP, document, prefer } = await derived()
    expect(HELP.replace(/\s+/g, ' ')).toContain(kind)
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

/** What each field of an option row states; a field added to `KindOptionSpec` must be named here. */
const ROW_FIELDS: Readonly<Record<keyof KindOptionSpec, string>> = {
  value: 'its kind of value (a row of VALUE_TYPES)',
  doc: 'its doc line',
  prefer: 'its Prefer spelling',
  flag: 'its flag of serve',
  har: 'its HAR field (or null for none)',
}

/** The preferences `Prefer` reads besides the kind options. */
const OWN_PREFERENCES = ['scenario', 'code', 'slug', 'delay']

const read = (page: string) =>
  readFileSync(new URL(`../../${page}`, import.meta.url), 'utf8').replace(/\s+/g, ' ')

/** The fields the public `Scenario` interface declares, read from its source. */
function scenarioFields(): string[] {
  const file = new URL('../../src/http/scenario.ts', import.meta.url)
  const source = ts.createSourceFile(
    'scenario.ts',
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.ES2022,
  )
  const scenario = source.statements.find(
    (node): node is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(node) && node.name.text === 'Scenario',
  )!
  return scenario.members.map((member) => (member.name as ts.Identifier).text)
}

/** The value at a dotted path of a HAR entry: `response.bodySize`. */
function fieldOf(entry: object, path: string): unknown {
  return path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)?.[key], entry)
}

describe.each(KIND_OPTION_NAMES.map((option) => [option] as const))(
  'the %s option row',
  (option) => {
    const row = kindOptionSpec(option)
    const type = valueType(row.value)
    const { example } = type
    const readers = readersOf(option)
    const spelling = `${row.prefer}=${type.placeholder}`

    it('states every field, and is read by at least one kind', () => {
      const missing = Object.entries(ROW_FIELDS).filter(([field]) => {
        const value = (row as unknown as Record<string, unknown>)[field]
        return value === undefined || (value === null && field !== 'har')
      })
      expect(missing.map(([, what]) => `${option} does not state ${what}`)).toEqual([])
      expect(Object.keys(VALUE_TYPES), `${option}'s value`).toContain(row.value)
      expect(readers, `no kind lists ${option} in its options`).not.toEqual([])
    })

    it('is a field of the public Scenario type', () => {
      expect(scenarioFields(), `src/http/scenario.ts: Scenario's fields`).toContain(option)
      // tsc checks the field's type: the value its row's kind of value parses.
      expectTypeOf<Pick<Scenario, KindOption>>().toEqualTypeOf<KindOptionValues>()
    })

    it.each(readers)(
      'is parsed from JSON for %s, and refused with a kind that does not read it',
      (kind) => {
        expect(
          parseScenario({ kind, [option]: example })[option],
          `parseScenario ${option}`,
        ).toEqual(example)
        const other = SCENARIO_KINDS.find(
          (k) => !readers.includes(k) && kindSpec(k).answer !== 'usual',
        )!
        expect(() => parseScenario({ kind: other, [option]: example })).toThrow(
          `\`scenario.${option}\` goes with the kinds`,
        )
      },
    )

    it.each(readers)('is parsed from Prefer for %s, under its own name', (kind) => {
      expect(OWN_PREFERENCES, `${option}'s Prefer name is taken`).not.toContain(row.prefer)
      const others = KIND_OPTION_NAMES.filter((o) => o !== option).map(
        (o) => kindOptionSpec(o).prefer,
      )
      expect(others, `${option}'s Prefer name is another option's`).not.toContain(row.prefer)
      const state = parsePrefer(`scenario=${kind}, ${row.prefer}=${String(example)}`)
      expect(state, `Prefer ${row.prefer}=`).toBeInstanceOf(ScenarioState)
      expect((state as ScenarioState).scenario[option], `Prefer ${row.prefer}=`).toEqual(example)
    })

    it.each(readers)(
      'is accepted by the published OpenAPI Scenario schema for %s, and named in its Prefer',
      async (kind) => {
        const { ajv, document, prefer } = await derived()
        const validate = ajv.getSchema('urn:taxonomy:Scenario')!
        const scenario = { kind, [option]: example }
        expect(
          validate(scenario) ? [] : validate.errors,
          `Scenario ${JSON.stringify(scenario)}`,
        ).toEqual([])
        const property = document.components.schemas.Scenario!.oneOf[1]!.properties?.[option]
        expect(property?.description, `Scenario.${option}'s description`).toContain(row.doc)
        expect(prefer.description, 'the Prefer parameter').toContain(`\`${spelling}\``)
      },
    )

    it.each(readers)(
      'is offered by the CLI for %s: its flag, the flag its errors name, and --help',
      async (kind) => {
        const { HELP, parseCliArgs, OPTION_FLAGS } = await derived()
        const args = parseCliArgs(['--scenario', kind, row.flag, String(example)], {}) as ServeArgs
        expect((args.scenario as Record<string, unknown>)[option], `serve ${row.flag}`).toEqual(
          example,
        )
        expect(
          Object.entries(OPTION_FLAGS).filter(([, flag]) => flag === row.flag),
          `the option of ${row.flag}`,
        ).toEqual([[`scenario.${option}`, row.flag]])
        const help = HELP.replace(/\s+/g, ' ')
        expect(help, '--help').toContain(`${row.flag} ${type.placeholder}`)
        expect(help, `--help on ${row.flag}`).toContain(row.doc)
        expect(help, "--help's Prefer").toContain(`[, ${spelling}]`)
      },
    )

    it.each(readers)('is recorded in the HAR for %s', async (kind) => {
      if (row.har === null) return
      const handle = createFetchHandler({ taxonomy, scenario: { kind, [option]: example } })
      const response = await handle(new Request(`http://har.test${path}`, { headers: AUTH }))
      await response.body?.cancel()
      const [entry] = toHar(handle.journal).log.entries
      const value = fieldOf(entry!, row.har)
      if (typeof example === 'number') expect(value, `HAR ${row.har}`).toBeCloseTo(example, 6)
      else expect(value, `HAR ${row.har}`).toEqual(example)
    })

    it('is named in the docs: the scenario fields, its kinds, its Prefer spelling, its flag and its HAR field', () => {
      const scenarios = read('docs/scenarios.md')
      const fields = /\{ kind\?, [^}]*\}/.exec(scenarios)?.[0] ?? ''
      const missing = [
        ...(fields.includes(` ${option}?`)
          ? []
          : [[`${option}?`, 'docs/scenarios.md: the fields']]),
        [
          `\`${option}\` (${readers.map((kind) => `\`${kind}\``).join(', ')})`,
          'docs/scenarios.md: the option and its kinds',
        ],
        [`\`${spelling}\``, 'docs/scenarios.md: Prefer'],
        [row.flag, 'docs/scenarios.md: the standalone server'],
        ...(row.har === null ? [] : [[`\`${row.har}\``, 'docs/scenarios.md: the HAR']]),
      ].filter(([text]) => !scenarios.includes(text!))
      if (!read('docs/reference.md').includes(`\`${row.flag} ${type.placeholder}\``))
        missing.push([`\`${row.flag} ${type.placeholder}\``, "docs/reference.md: serve's flags"])
      expect(missing.map(([text, where]) => `${where} does not name ${text}`)).toEqual([])
    })
  },
)
