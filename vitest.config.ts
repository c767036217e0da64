import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const dist = (path: string) => fileURLToPath(new URL(`./dist/${path}`, import.meta.url))

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/**/*.browser.test.ts', 'test/**/*.storybook.test.ts', 'test/**/*.playwright.test.ts'] },
      },
      {
        // The README's Playwright recipes, run by @playwright/test in a packed install (npm run test:playwright).
        extends: true,
        test: { name: 'playwright', include: ['test/**/*.playwright.test.ts'], testTimeout: 300_000, hookTimeout: 600_000 },
      },
      {
        // Real headless Chromium (Debian's package): `npm run test:browser`, run by .ci/run.
        extends: true,
        test: { name: 'browser', include: ['test/**/*.browser.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        // The README's Storybook setup: installs, builds and opens examples/storybook (npm run test:storybook).
        extends: true,
        test: { name: 'storybook', include: ['test/**/*.storybook.test.ts'], testTimeout: 60_000, hookTimeout: 600_000 },
      },
      {
        // The README's Vitest example, run as a user runs it: against the built package.
        extends: true,
        resolve: {
          alias: {
            'taxonomy-mock/msw': dist('msw/index.js'),
            'taxonomy-mock/server': dist('server/index.js'),
          },
        },
        test: {
          name: 'example',
          include: ['examples/vitest/**/*.test.ts'],
          setupFiles: ['examples/vitest/setup.ts'],
        },
      },
    ],
  },
})
