import { execFileSync } from 'node:child_process'
import type { TestProject } from 'vitest/node'
import { installLineOf } from '../helpers/install-lines.js'
import { installedVersion, packAndInstall } from '../helpers/packed.js'

declare module 'vitest' {
  export interface ProvidedContext {
    playwrightProject: string
  }
}

/** The pages whose `npm i -D` lines the project installs. */
const PLAYWRIGHT_PAGES = ['docs/recipes/playwright-msw.md', 'docs/recipes/playwright-server.md']

/**
 * What a page's line names, as it names it, but `@playwright/test` at the version of this
 * repository's playwright-core: the runner and the browser driver the other tests use agree, and a
 * new release cannot change what these tests run.
 */
function pinned(spec: { name: string; spec: string }): string {
  return spec.name === '@playwright/test'
    ? `@playwright/test@${installedVersion('playwright-core')}`
    : spec.spec
}

/**
 * One project for every test of the `playwright` project: the packed tarball, then what the
 * recipe pages' install lines name. Each test file lays out its files in folders of its own.
 */
export default function setup(project: TestProject): void {
  const { dir } = packAndInstall()
  const specs = new Set(
    PLAYWRIGHT_PAGES.flatMap((page) => installLineOf(page))
      .filter((named) => named.name !== 'taxonomy-mock')
      .map(pinned),
  )
  execFileSync('npm', ['install', '--no-audit', '--no-fund', ...specs], {
    cwd: dir,
    stdio: 'ignore',
  })
  project.provide('playwrightProject', dir)
}
