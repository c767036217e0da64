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
export type { Taxonomy, TaxonomyView } from './core/store.js'
export type { CreateTaxonomyOptions, Generation } from './core/generate.js'
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
  FixtureRecord,
  FixtureSubDiscipline,
  FixtureTopic,
  Level,
  SubDisciplineRecord,
  SubDisciplineSummary,
  TopicSummary,
} from './core/types.js'
