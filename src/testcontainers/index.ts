export { DEFAULT_IMAGE, StartedTaxonomyMockContainer, TaxonomyMockContainer } from './container.js'
export type { ContainerSession } from './container.js'
export type { SessionClient, SessionDataAnswer } from '../http/session-client.js'
