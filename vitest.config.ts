import { defineConfig } from 'vitest/config'
import { useRunTempFolder } from './test/setup/temp-folder.js'

useRunTempFolder()

const UNIT_EXCLUDE = [
  'test/**/*.browser.test.ts',
  'test/**/*.storybook.test.ts',
  'test/**/*.runtimes.test.ts',
  'test/**/*.playwright.test.ts',
  'test/**/*.replicas.test.ts',
  'test/**/*.stacks.test.ts',
  'test/**/*.containers.test.ts',
  'test/package/**',
  'test/readme.test.ts',
]

/**
 * The generator, the resolver and the kinds, in process: files that mock no module and leave no
 * global changed (a helper's clean-up runs after each test of every file: test/helpers/after-each.ts).
 * They share one module graph per worker (`isolate: false`): a module is loaded once, not once per
 * file, and a dataset one file generated is not generated again by the next (src/core/generate.ts
 * keeps the last few; they are immutable). This halves what these files cost.
 */
const SHARED = [
  'test/core/**/*.test.ts',
  'test/fuzz/*.properties.test.ts',
  'test/http/**/*.test.ts',
  'test/kinds/**/*.test.ts',
]

/**
 * The CLI and the server driven over sockets and child processes, by files that change nothing in
 * their own process either (no module mocked, no global or environment changed, no command run in
 * process): as the core project's, they share one module graph per worker, which takes about a
 * fifth off what they cost. `ISOLATED` are those of them that do change it, or measure its memory.
 */
const OUTSIDE = ['test/cli/**/*.test.ts', 'test/server/**/*.test.ts', 'test/fuzz/socket.test.ts']
const ISOLATED = [
  'test/cli/option-flags.test.ts',
  'test/server/{memory-budget,node-internals,node-internals-missing,tls}.test.ts',
]

export default defineConfig({
  test: {
    // Timeouts catch a hang, nothing else: a test waits for its event, and a busy machine (both
    // cores taken by other work) may take several times as long as a quiet one.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    // The slowest files, after each run: a slow test is seen the day it arrives.
    reporters: ['default', './test/reporters/slowest-files.ts'],
    // What helpers undo after each test, run for every file (test/helpers/after-each.ts).
    setupFiles: ['test/setup/after-each.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Most files wait on sockets and child processes: three at a time keep two cores busy.
          maxWorkers: 3,
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT_EXCLUDE, ...SHARED, ...OUTSIDE],
        },
      },
      {
        // Run with the unit project by `npm test`.
        extends: true,
        // One pool with the unit project: the same number of workers (Vitest asks it of projects run together).
        test: { name: 'core', include: SHARED, isolate: false, maxWorkers: 3 },
      },
      {
        // Run with the unit project by `npm test`.
        extends: true,
        test: {
          name: 'outside',
          include: OUTSIDE,
          exclude: ISOLATED,
          isolate: false,
          maxWorkers: 3,
        },
      },
      {
        // Run with the unit project by `npm test`.
        extends: true,
        test: { name: 'isolated', include: ISOLATED, maxWorkers: 3 },
      },
      {
        // What can differ between Node versions, for CI on Node 22 and 24 (npm run test:versions):
        // the CLI, the server and every transport (Node's HTTP, TLS, fetch, child processes; msw 3).
        // The pure checks ran once, in the unit project.
        extends: true,
        test: {
          name: 'versions',
          maxWorkers: 3,
          include: ['test/{msw,cases,vitest,matchers}/**/*.test.ts', ...ISOLATED],
          exclude: UNIT_EXCLUDE,
        },
      },
      {
        // With the versions project, in one shared module graph per worker as in the core and
        // outside projects: the CLI and the server from outside, the resolver's transports and
        // kinds, and the generator's golden bytes.
        extends: true,
        test: {
          name: 'versions-shared',
          include: [...OUTSIDE, 'test/{http,kinds}/**/*.test.ts', 'test/core/golden.test.ts'],
          // Argument handling, file output and type output: the same on every Node.
          exclude: [
            ...ISOLATED,
            'test/cli/{commands,export-session,export-types,scenarios,store-flag,validate,written-files}.test.ts',
          ],
          isolate: false,
          maxWorkers: 3,
        },
      },
      {
        // The packed tarball installed into temp consumer projects, once; the README's blocks run there.
        extends: true,
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts', 'test/readme.test.ts'],
          exclude: ['test/**/*.git.test.ts'],
          globalSetup: ['test/package/global-setup.ts'],
          // A hang, not a slow install or compile: beside CI's other jobs one took over 120 s.
          testTimeout: 300_000,
          // Files wait on npm installs and child processes more than they use a core: two at a time.
          maxWorkers: 2,
        },
      },
      {
        // Installed from a git+file:// URL of a fresh clone, which npm builds after installing its
        // devDependencies there: run with the package project by `npm run test:package` (in .ci/run).
        extends: true,
        // Run with the package project: the same number of workers (Vitest asks it of projects run together).
        test: {
          name: 'git',
          include: ['test/**/*.git.test.ts'],
          // A hang, not a slow install: npm installs every devDependency and builds; with both
          // cores taken by other CI work that took more than 300 s.
          testTimeout: 900_000,
          maxWorkers: 2,
        },
      },
      {
        // Bun and Deno from the npm registry, installed into a temp folder: `npm run test:runtimes`, run by .ci/run.
        extends: true,
        test: {
          name: 'runtimes',
          include: ['test/**/*.runtimes.test.ts'],
          globalSetup: ['test/runtimes/global-setup.ts'],
        },
      },
      {
        // The README's Playwright recipes, run by @playwright/test in a packed install (npm run test:playwright).
        extends: true,
        test: {
          name: 'playwright',
          include: ['test/**/*.playwright.test.ts'],
          globalSetup: ['test/playwright/global-setup.ts'],
          // One Playwright run at a time: each starts its own Chromium workers.
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        // Replicas sharing Debian's redis-server, started on loopback: `npm run test:replicas`, run by .ci/run.
        extends: true,
        test: {
          name: 'replicas',
          include: ['test/**/*.replicas.test.ts'],
          // Each file starts a redis-server of its own, on a free port: two files at a time.
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      {
        // Real headless Chromium (Debian's package): `npm run test:browser`, run by .ci/run.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          // One Chromium and one `npx msw init` for every file, not one each.
          globalSetup: ['test/browser/global-setup.ts'],
          // No file mocks a module or leaves a global changed: they share one module graph per
          // worker (playwright-core, esbuild and Vite loaded once, not once per file).
          isolate: false,
          // Pages wait on Chromium more than they use a core: three files at a time (each opens its
          // pages on the one Chromium), and the same pool as the versions projects, which CI runs them with.
          maxWorkers: 3,
        },
      },
      {
        // The Storybook recipe followed as written from `npm create`, built and opened, and a Storybook 9 copy (npm run test:storybook).
        extends: true,
        test: {
          name: 'storybook',
          include: ['test/**/*.storybook.test.ts'],
          // A hang, not a slow page: with both cores taken, one story's checks took over 40 s.
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        // Other stacks: the Python and Go recipes (Debian's python3-pytest and golang-go) and the
        // single executable (its --store beside redis-server), against one packed install and one
        // build (npm run test:stacks).
        extends: true,
        test: {
          name: 'stacks',
          include: ['test/**/*.stacks.test.ts'],
          // The recipes and the single executable side by side: each waits on its own processes.
          maxWorkers: 2,
          globalSetup: ['test/stacks/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
      {
        // The container image (Containerfile) built with Debian's podman on a stand-in base, once per
        // run; replicas behind Debian's haproxy; the Kubernetes manifests (npm run test:containers).
        extends: true,
        test: {
          name: 'containers',
          include: ['test/**/*.containers.test.ts'],
          globalSetup: ['test/containers/global-setup.ts'],
          // One file at a time: each puts load on the containers of its own.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
