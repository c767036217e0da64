export { createTaxonomyTest } from './msw-test.js'
export { createSessionTest, TAXONOMY_MOCK_URL_ENV } from './session-test.js'
export type { MswServer, TaxonomyFixture, TaxonomyTestOptions } from './msw-test.js'
export type { SessionFixture, SessionTestOptions } from './session-test.js'
