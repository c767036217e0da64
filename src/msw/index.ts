export { createHandlers, createMock } from './mock.js'
export {
  delayAnswers,
  failNetwork,
  failTimes,
  failWith,
  hangAnswers,
  hideSlug,
  injectFaults,
  rejectKeys,
  withScenario,
} from './scenarios.js'
export { DEFAULT_API_KEY } from '../http/options.js'
export { toHar } from '../http/request-journal.js'
export { SCENARIO_KINDS } from '../http/scenario.js'
export type { CreateHandlersOptions } from './handlers.js'
export type { MockKit } from './mock.js'
export type { WithData } from './data.js'
export type { SessionPatch } from '../http/session-data.js'
export type { HarOptions, RequestJournal } from '../http/request-journal.js'
export type { Har, HarEntry } from '../http/har.js'
export type { AnswerReason, JournalEntry, KeyState } from '../http/journal.js'
export type { ScenarioHelpers, ScenarioOptions } from './scenarios.js'
export type { AnswerOptions, DataOptions, MockOptions } from '../http/options.js'
export type {
  FaultKind,
  Scenario,
  ScenarioDelay,
  ScenarioInput,
  ScenarioKind,
  SeededFaults,
} from '../http/scenario.js'
export { createSwitchableMock } from './switchable.js'
export { createDevMock } from './dev-hook.js'
export { DATA_CHOICES, SCENARIO_CHOICES } from './choices.js'
export type { MockState, SwitchableMock } from './switchable.js'
export type { TaxonomyMockHook } from './dev-hook.js'
export type { DataChoice, ScenarioChoice } from './choices.js'
