// playwright.config.ts: MSW's own Playwright binding; the kit's handlers answer in the test process.
import { defineConfig } from '@playwright/test'

export default defineConfig({
  testDir: '.',
  fullyParallel: true,
  workers: 2,
  use: {
    baseURL: 'http://app.test',
    // Debian's Chromium here; leave launchOptions out where `npx playwright install` is allowed.
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  },
})
