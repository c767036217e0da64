import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'
import { ENDPOINT_LIST } from '../../src/http/endpoints.js'
import type { TaxonomyOptions } from '../../src/playwright/index.js'

// Each entry point's exports, values and types: the public surface, so that its growth is a
// reviewed diff of this file.
const ENTRIES = {
  'taxonomy-mock': 'src/index.ts',
  'taxonomy-mock/fetch': 'src/http/index.ts',
  'taxonomy-mock/msw': 'src/msw/index.ts',
  'taxonomy-mock/server': 'src/server/index.ts',
  'taxonomy-mock/contract': 'src/contract/index.ts',
  'taxonomy-mock/matchers': 'src/matchers/index.ts',
  'taxonomy-mock/matchers/vitest': 'src/matchers/vitest.ts',
  'taxonomy-mock/matchers/jest': 'src/matchers/jest.ts',
  'taxonomy-mock/vitest': 'src/vitest/index.ts',
  'taxonomy-mock/playwright': 'src/playwright/index.ts',
  'taxonomy-mock/storybook': 'src/storybook/index.ts',
  'taxonomy-mock/testcontainers': 'src/testcontainers/index.ts',
} as const

const files = Object.values(ENTRIES).map((path) =>
  fileURLToPath(new URL(`../../${path}`, import.meta.url)),
)
const program = ts.createProgram(files, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  noEmit: true,
  skipLibCheck: true,
  types: [],
})
const checker = program.getTypeChecker()
const exportsOf = (file: string) =>
  checker
    .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!)
    .map((symbol) => symbol.name)
    .sort()
const [
  root,
  fetch,
  msw,
  server,
  contract,
  matchers,
  matchersVitest,
  matchersJest,
  vitest,
  playwright,
  storybook,
  testcontainers,
] = files.map(exportsOf)

it('taxonomy-mock exports the data: create, load, patch, records, fixture JSON and their types', () => {
  expect(root).toEqual([
    'CreateTaxonomyOptions',
    'DEFAULT_SEED',
    'DisciplineRecord',
    'DisciplineShape',
    'DisciplineSummary',
    'DomainSummary',
    'FIXTURE_FORMAT',
    'FIXTURE_FORMATS',
    'Fixture',
    'FixtureDiscipline',
    'FixtureDomain',
    'FixtureError',
    'FixtureErrorCode',
    'FixtureFormat',
    'FixtureIssue',
    'FixtureRecord',
    'FixtureSubDiscipline',
    'FixtureTopic',
    'Generation',
    'Level',
    'PRESET_NAMES',
    'PresetName',
    'RECORDED_FIXTURE_FORMAT',
    'RecordOptions',
    'RecordPatch',
    'SIZES',
    'Size',
    'SizeCounts',
    'SubDisciplineRecord',
    'SubDisciplineSummary',
    'Taxonomy',
    'TaxonomyPatch',
    'TaxonomyView',
    'TopicSummary',
    'createDisciplinePatch',
    'createTaxonomy',
    'fixtureJsonChunks',
    'loadTaxonomy',
    'parseFixture',
    'patchTaxonomy',
    'presetPatch',
    'toDisciplineRecord',
    'toFixtureJson',
    'toSlugTypes',
    'toSubDisciplineRecord',
  ])
})

it('taxonomy-mock/fetch exports the fetch handler, the resolver, the scenarios and the header names', () => {
  expect(fetch).toEqual([
    'ADMIN_KEY_HEADER',
    'AnswerOptions',
    'AnswerReason',
    'AnswerSource',
    'Collection',
    'DEFAULT_API_KEY',
    'DEFAULT_SESSION',
    'DataOptions',
    'Delivery',
    'ErrorStatuses',
    'FaultKind',
    'FetchHandler',
    'FetchHandlerOptions',
    'Har',
    'HarEntry',
    'HarOptions',
    'HarPair',
    'HelperName',
    'JournalEntry',
    'KeyState',
    'MockAnswer',
    'MockOptions',
    'MockRequest',
    'NestedOrder',
    'RequestJournal',
    'ResolveContext',
    'ResolvedOptions',
    'Resolver',
    'SCENARIO_KINDS',
    'SESSION_HEADER',
    'Scenario',
    'ScenarioDelay',
    'ScenarioInput',
    'ScenarioKind',
    'SeededFaults',
    'SequenceStep',
    'SequenceStepInput',
    'SessionPatch',
    'StreamDelay',
    'createFetchHandler',
    'createResolver',
    'parseScenario',
    'toHar',
  ])
})

it('taxonomy-mock/contract exports verify and record against a real service', () => {
  expect(contract).toEqual([
    'Latency',
    'NestedArray',
    'Observation',
    'ObservedOrder',
    'RULES',
    'RecordError',
    'RecordResult',
    'RecordServiceOptions',
    'RuleId',
    'RuleResult',
    'ServiceOptions',
    'TooLargeError',
    'UnreachableError',
    'VerifyOptions',
    'VerifyReport',
    'formatVerifySummary',
    'recordService',
    'toJunitXml',
    'verifyService',
  ])
})

it('taxonomy-mock/msw exports the handlers, the kit and the scenario helpers', () => {
  expect(msw).toEqual([
    'AnswerOptions',
    'AnswerReason',
    'CreateHandlersOptions',
    'DATA_CHOICES',
    'DEFAULT_API_KEY',
    'DataChoice',
    'DataOptions',
    'FaultKind',
    'Har',
    'HarEntry',
    'HarOptions',
    'JournalEntry',
    'KeyState',
    'MockKit',
    'MockOptions',
    'MockState',
    'RequestJournal',
    'SCENARIO_CHOICES',
    'SCENARIO_KINDS',
    'Scenario',
    'ScenarioChoice',
    'ScenarioDelay',
    'ScenarioHelpers',
    'ScenarioInput',
    'ScenarioKind',
    'ScenarioOptions',
    'SeededFaults',
    'SessionPatch',
    'SwitchableMock',
    'TaxonomyMockHook',
    'WithData',
    'createDevMock',
    'createHandlers',
    'createMock',
    'createSwitchableMock',
    'delayAnswers',
    'failNetwork',
    'failTimes',
    'failWith',
    'hangAnswers',
    'hideSlug',
    'injectFaults',
    'rejectKeys',
    'toHar',
    'withScenario',
  ])
})

it('taxonomy-mock/server exports the server', () => {
  expect(server).toEqual([
    'CloseOptions',
    'DEFAULT_HOST',
    'DEFAULT_PORT',
    'RequestLogEntry',
    'RunningServer',
    'ServerCertificate',
    'StartServerOptions',
    'TlsOptions',
    'startServer',
  ])
})

it('taxonomy-mock/matchers exports the matchers and their types; its /vitest and /jest only extend expect', () => {
  expect(matchers).toEqual([
    'AnswerReason',
    'JournalEntry',
    'JournalSource',
    'KeyState',
    'MatcherContext',
    'MatcherResult',
    'PolledSession',
    'RequestCount',
    'RequestMatch',
    'ServerSession',
    'TaxonomyAssertionResult',
    'TaxonomyAsymmetricMatchers',
    'TaxonomyMatchers',
    'matchers',
  ])
  expect(matchersVitest).toEqual([])
  expect(matchersJest).toEqual([])
})

it('taxonomy-mock/vitest exports the Vitest fixtures: an MSW kit per file, a server session per test', () => {
  expect(vitest).toEqual([
    'MswServer',
    'SessionFixture',
    'SessionTestOptions',
    'TAXONOMY_MOCK_URL_ENV',
    'TaxonomyFixture',
    'TaxonomyTestOptions',
    'createSessionTest',
    'createTaxonomyTest',
  ])
})

it('taxonomy-mock/playwright exports test and expect with the taxonomy fixture, and its types', () => {
  expect(playwright).toEqual([
    'SessionDataAnswer',
    'TaxonomyFixture',
    'TaxonomyOptions',
    'TaxonomyTestFixtures',
    'TaxonomyWorkerFixtures',
    'TaxonomyWorkerServer',
    'expect',
    'test',
  ])
})

it("types taxonomyServer without `tls`, which the worker refuses at run time, and with startServer's other options", () => {
  const options: TaxonomyOptions['taxonomyServer'] = { size: 'small', patch: { disciplines: [] } }
  // @ts-expect-error the worker's server serves plain HTTP: `tls` is refused, so it does not compile
  const refused: TaxonomyOptions['taxonomyServer'] = { tls: 'self-signed' }
  expect([options, refused]).toHaveLength(2)
})

it('taxonomy-mock/testcontainers exports the container classes and the session type', () => {
  expect(testcontainers).toEqual([
    'ContainerSession',
    'DEFAULT_IMAGE',
    'SessionClient',
    'SessionDataAnswer',
    'StartedTaxonomyMockContainer',
    'TaxonomyMockContainer',
  ])
})

/** The declarations of a symbol, its aliases followed. */
const declarationsOf = (symbol: ts.Symbol): ts.Declaration[] =>
  ((symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol).declarations ??
    []) as ts.Declaration[]

/** Marked `@internal` (a constructor: any of its overloads), as the trusting `Taxonomy` constructor is. */
const isInternal = (node: ts.Node): boolean =>
  ts.isConstructorDeclaration(node)
    ? node.parent.members.some(
        (member) =>
          ts.isConstructorDeclaration(member) &&
          ts.getJSDocTags(member).some((tag) => tag.tagName.text === 'internal'),
      )
    : ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal')

/** The package's own types that a public declaration names, walking its signature but no body. */
function typesNamedBy(declaration: ts.Node): Set<ts.Symbol> {
  const named = new Set<ts.Symbol>()
  const visit = (node: ts.Node): void => {
    if (ts.isBlock(node) || ts.isPrivateIdentifier(node) || isInternal(node)) return
    if (
      ts.canHaveModifiers(node) &&
      ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)
    )
      return
    if (
      (ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) &&
      ts.isPrivateIdentifier(node.name)
    )
      return
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const name = ts.isTypeReferenceNode(node) ? node.typeName : node.expression
      let symbol = checker.getSymbolAtLocation(name)
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
      const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? ''
      if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter) && file.includes('/src/'))
        named.add(symbol)
    }
    // A function's return type, when the source leaves it to inference, is named in the .d.ts too.
    if (ts.isFunctionDeclaration(node) && node.type === undefined) {
      const signature = checker.getSignatureFromDeclaration(node)
      const symbol = signature && checker.getReturnTypeOfSignature(signature).getSymbol()
      if (symbol?.declarations?.[0]?.getSourceFile().fileName.includes('/src/')) named.add(symbol)
    }
    ts.forEachChild(node, visit)
  }
  visit(declaration)
  return named
}

it('names no type in a public declaration that no entry point exports', () => {
  const exported = new Set<ts.Symbol>()
  const publicSymbols = files.flatMap((file) =>
    checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!),
  )
  for (const symbol of publicSymbols)
    exported.add(symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)
  const missing = new Set<string>()
  for (const symbol of publicSymbols)
    for (const declaration of declarationsOf(symbol))
      for (const named of typesNamedBy(declaration))
        if (!exported.has(named)) missing.add(`${symbol.name} names ${named.name}`)
  expect([...missing].sort()).toEqual([])
})

it("exports each endpoint's record builder and the record type it returns from taxonomy-mock", () => {
  const table = program.getSourceFile(
    fileURLToPath(new URL('../../src/http/endpoints.ts', import.meta.url)),
  )!
  const endpoints = checker
    .getExportsOfModule(checker.getSymbolAtLocation(table)!)
    .find((symbol) => symbol.name === 'ENDPOINTS')!
  const rootExports = new Set(
    checker
      .getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(files[0]!)!)!)
      .map((symbol) =>
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
      ),
  )
  const rows = checker.getTypeOfSymbol(endpoints).getProperties()
  expect(rows.map((row) => row.name)).toEqual(ENDPOINT_LIST.map((row) => row.collection))
  const unexported: string[] = []
  for (const row of rows) {
    const build = checker.getTypeOfSymbol(checker.getTypeOfSymbol(row).getProperty('build')!)
    const builder = build.getSymbol()
    const record = build.getCallSignatures()[0]?.getReturnType().getSymbol()
    if (builder === undefined || !rootExports.has(builder))
      unexported.push(`${row.name}: its builder ${builder?.name ?? '(none)'}`)
    if (record === undefined || !rootExports.has(record))
      unexported.push(`${row.name}: its record type ${record?.name ?? '(none)'}`)
  }
  expect(unexported).toEqual([])
})

it('taxonomy-mock/storybook exports the menus and the type of parameters.taxonomy', () => {
  expect(storybook).toEqual([
    'DATA_CHOICES',
    'DataChoice',
    'SCENARIO_CHOICES',
    'ScenarioChoice',
    'TaxonomyParameters',
  ])
})
