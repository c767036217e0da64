export { createFetchHandler } from './fetch.js'
export { toHar } from './request-journal.js'
export type { HarOptions, RequestJournal } from './request-journal.js'
export type { Har, HarEntry, HarPair } from './har.js'
export type { HelperName } from './journal.js'
export { createResolver } from './resolver.js'
export { DEFAULT_API_KEY } from './options.js'
export { parseScenario, SCENARIO_KINDS } from './scenario.js'
export { DEFAULT_SESSION } from './sessions.js'
export { ADMIN_KEY_HEADER, SESSION_HEADER } from './header-names.js'
export type { Collection } from './endpoints.js'
export type { FetchHandler, FetchHandlerOptions } from './fetch.js'
export type { MockRequest, ResolveContext, Resolver } from './resolver.js'
export type { Delivery, MockAnswer } from './responses.js'
export type { SessionPatch } from './session-data.js'
export type {
  AnswerOptions,
  DataOptions,
  ErrorStatuses,
  MockOptions,
  NestedOrder,
  ResolvedOptions,
} from './options.js'
export type {
  FaultKind,
  Scenario,
  ScenarioDelay,
  ScenarioInput,
  ScenarioKind,
  SeededFaults,
  SequenceStep,
  SequenceStepInput,
  StreamDelay,
} from './scenario.js'
export type { AnswerReason, JournalEntry, KeyState } from './sessions.js'
export type { AnswerSource } from './upstream.js'
