import type { TestProject } from 'vitest/node'
import { createConsumerProjects, type ConsumerProjects } from '../helpers/packed.js'

declare module 'vitest' {
  export interface ProvidedContext {
    consumers: ConsumerProjects
  }
}

/** Packs and installs once for every test of the `package` project: two npm installs, not one per file. */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('consumers', await createConsumerProjects())
}
