export { expect } from '@playwright/test'
export { test } from './fixtures.js'
export type {
  TaxonomyFixture,
  TaxonomyOptions,
  TaxonomyTestFixtures,
  TaxonomyWorkerFixtures,
  TaxonomyWorkerServer,
} from './fixtures.js'
export type { SessionDataAnswer } from '../http/session-client.js'
