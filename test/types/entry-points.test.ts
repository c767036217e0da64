import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'

// Each entry point's exports, values and types: the public surface, so that its growth is a
// reviewed diff of this file.
const ENTRIES = {
  'taxonomy-mock': 'src/index.ts',
  'taxonomy-mock/msw': 'src/msw/index.ts',
  'taxonomy-mock/server': 'src/server/index.ts',
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
const [root, msw, server] = files.map(exportsOf)

it('taxonomy-mock exports the data, the resolver, the scenarios and verify/record', () => {
  expect(root).toEqual([
    'ADMIN_KEY_HEADER',
    'AnswerOptions',
    'CreateTaxonomyOptions',
    'DEFAULT_API_KEY',
    'DEFAULT_SEED',
    'DEFAULT_SESSION',
    'DataOptions',
    'Delivery',
    'DisciplineRecord',
    'DisciplineShape',
    'DisciplineSummary',
    'DomainSummary',
    'ErrorStatuses',
    'FIXTURE_FORMAT',
    'FIXTURE_FORMATS',
    'FaultKind',
    'FetchHandlerOptions',
    'Fixture',
    'FixtureDiscipline',
    'FixtureDomain',
    'FixtureError',
    'FixtureErrorCode',
    'FixtureFormat',
    'FixtureIssue',
    'FixtureSubDiscipline',
    'FixtureTopic',
    'JournalEntry',
    'Level',
    'MockAnswer',
    'MockOptions',
    'MockRequest',
    'NestedArray',
    'NestedOrder',
    'Observation',
    'ObservedOrder',
    'PRESET_NAMES',
    'PresetName',
    'RECORDED_FIXTURE_FORMAT',
    'RULES',
    'RecordError',
    'RecordOptions',
    'RecordPatch',
    'RecordResult',
    'RecordServiceOptions',
    'ResolveContext',
    'Resolver',
    'RuleId',
    'RuleResult',
    'SCENARIO_KINDS',
    'SESSION_HEADER',
    'SIZES',
    'Scenario',
    'ScenarioDelay',
    'ScenarioInput',
    'ScenarioKind',
    'SeededFaults',
    'ServiceOptions',
    'Size',
    'SizeCounts',
    'SubDisciplineRecord',
    'SubDisciplineSummary',
    'Taxonomy',
    'TaxonomyPatch',
    'TooLargeError',
    'TopicSummary',
    'UnreachableError',
    'VerifyOptions',
    'VerifyReport',
    'createDisciplinePatch',
    'createFetchHandler',
    'createResolver',
    'createTaxonomy',
    'fixtureJsonChunks',
    'formatVerifySummary',
    'loadTaxonomy',
    'parseFixture',
    'parseScenario',
    'patchTaxonomy',
    'presetPatch',
    'recordService',
    'toDisciplineRecord',
    'toFixtureJson',
    'toJunitXml',
    'toSlugTypes',
    'toSubDisciplineRecord',
    'verifyService',
  ])
})

it('taxonomy-mock/msw exports the handlers, the kit and the scenario helpers', () => {
  expect(msw).toEqual([
    'AnswerOptions',
    'CreateHandlersOptions',
    'DEFAULT_API_KEY',
    'DataOptions',
    'FaultKind',
    'MockKit',
    'MockOptions',
    'SCENARIO_KINDS',
    'Scenario',
    'ScenarioDelay',
    'ScenarioHelpers',
    'ScenarioInput',
    'ScenarioKind',
    'ScenarioOptions',
    'SeededFaults',
    'createHandlers',
    'createMock',
    'delayAnswers',
    'failNetwork',
    'failTimes',
    'failWith',
    'hangAnswers',
    'hideSlug',
    'injectFaults',
    'rejectKeys',
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
