export { createTaxonomy, DEFAULT_SEED } from './core/generate.js'
export { loadTaxonomy } from './core/load.js'
export { patchTaxonomy } from './core/patch.js'
export { PRESET_NAMES, presetPatch } from './core/presets.js'
export { createDisciplinePatch } from './core/patch-builder.js'
export { toSlugTypes } from './core/slug-types.js'
export { parseFixture } from './core/fixture.js'
export { FixtureError } from './core/fixture-error.js'
export { toDisciplineRecord, toSubDisciplineRecord } from './core/records.js'
export { fixtureJsonChunks, toFixtureJson } from './core/serialize.js'
export { SIZES } from './core/size.js'
export { FIXTURE_FORMAT, FIXTURE_FORMATS, RECORDED_FIXTURE_FORMAT } from './core/types.js'
export type { Taxonomy } from './core/store.js'
export type { CreateTaxonomyOptions } from './core/generate.js'
export type { RecordOptions } from './core/records.js'
export type { RecordPatch, TaxonomyPatch } from './core/patch.js'
export type { PresetName } from './core/presets.js'
export type { DisciplineShape } from './core/patch-builder.js'
export type { FixtureErrorCode, FixtureIssue } from './core/fixture-error.js'
export type { Size, SizeCounts } from './core/size.js'
export type {
  DisciplineRecord,
  DisciplineSummary,
  DomainSummary,
  Fixture,
  FixtureDiscipline,
  FixtureDomain,
  FixtureFormat,
  FixtureSubDiscipline,
  FixtureTopic,
  Level,
  SubDisciplineRecord,
  SubDisciplineSummary,
  TopicSummary,
} from './core/types.js'
export { createFetchHandler } from './http/fetch.js'
export { createResolver } from './http/resolver.js'
export { DEFAULT_API_KEY } from './http/options.js'
export { parseScenario, SCENARIO_KINDS } from './http/scenario.js'
export { DEFAULT_SESSION } from './http/sessions.js'
export { ADMIN_KEY_HEADER, SESSION_HEADER } from './http/header-names.js'
export type { FetchHandlerOptions } from './http/fetch.js'
export type { MockRequest, ResolveContext, Resolver } from './http/resolver.js'
export type { Delivery, MockAnswer } from './http/responses.js'
export type {
  AnswerOptions,
  DataOptions,
  ErrorStatuses,
  MockOptions,
  NestedOrder,
} from './http/options.js'
export type {
  FaultKind,
  Scenario,
  ScenarioDelay,
  ScenarioInput,
  ScenarioKind,
  SeededFaults,
} from './http/scenario.js'
export type { JournalEntry } from './http/sessions.js'
export { verifyService } from './contract/verify.js'
export { recordService, RecordError } from './contract/record.js'
export { UnreachableError } from './contract/client.js'
export { TooLargeError } from './contract/budget.js'
export { formatVerifySummary, toJunitXml } from './contract/format.js'
export { RULES } from './contract/rules.js'
export type { VerifyReport } from './contract/verify.js'
export type { RecordResult } from './contract/record.js'
export type { RecordServiceOptions, ServiceOptions, VerifyOptions } from './contract/options.js'
export type { RuleId, RuleResult } from './contract/rules.js'
export type { Observation } from './contract/observe.js'
export type { NestedArray, ObservedOrder } from './contract/order.js'
