import { chromium } from 'playwright-core'
import type { TestProject } from 'vitest/node'
import { chromiumOptions, initPublicFolder } from './chromium-launch.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The WebSocket endpoint of the one Chromium every file of the run connects to. */
    chromiumEndpoint: string
    /** The `public/` folder `npx msw init` made once for every page of the run (read only). */
    mswPublicFolder: string
  }
}

/**
 * Once for every file of the `browser` project, not once per file: Debian's Chromium (each file
 * opens pages in contexts of its own on it) and MSW's worker script, made by `npx msw init` as the
 * recipe makes it. Both are the same for every file; launching and making them per file took about
 * a seventh of what the project cost.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  project.provide('mswPublicFolder', initPublicFolder())
  const server = await chromium.launchServer({ ...chromiumOptions(), host: '127.0.0.1' })
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return () => server.close()
}
