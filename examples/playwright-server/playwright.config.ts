// playwright.config.ts: the standalone mock as Playwright's webServer, shared by parallel workers.
import { defineConfig } from '@playwright/test'

export const MOCK = `http://127.0.0.1:${process.env.MOCK_PORT ?? 4478}`

export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  workers: 2,
  webServer: {
    command: `npx taxonomy-mock --port ${process.env.MOCK_PORT ?? 4478} --size small --quiet`,
    url: `${MOCK}/__health`,
    reuseExistingServer: !process.env.CI,
  },
  use: {
    // Debian's Chromium here; leave launchOptions out where `npx playwright install` is allowed.
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
})
