import type { TestProject } from 'vitest/node'
import { buildImages, type ContainerImages } from './images.js'

declare module 'vitest' {
  export interface ProvidedContext {
    containers: ContainerImages
  }
}

/** Builds the images once for every file of the `containers` project, and removes them after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { images, teardown } = await buildImages()
  project.provide('containers', images)
  return teardown
}
