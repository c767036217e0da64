/** The mock's own request headers, as documents spell them and as requests are read (lower case). */

/** Names a session (a path prefix `/__sessions/{id}` does too). */
export const SESSION_HEADER_NAME = 'X-Taxonomy-Mock-Session'
export const SESSION_HEADER = 'x-taxonomy-mock-session'

/** Carries `adminKey`; never the API key. */
export const ADMIN_KEY_HEADER_NAME = 'X-Taxonomy-Mock-Admin-Key'
export const ADMIN_KEY_HEADER = 'x-taxonomy-mock-admin-key'

/** On every API answer: which data answered (`describeServedDataset`). */
export const DATASET_HEADER_NAME = 'X-Taxonomy-Mock-Dataset'
export const DATASET_HEADER = 'x-taxonomy-mock-dataset'
