import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LaunchOptions } from 'playwright-core'

// What the browser tests' Chromium and MSW worker script are made of, for the files (chromium.ts)
// and for the browser project's global setup alike: no Vitest here, which the setup runs outside.

/**
 * The Chromium every browser test drives, and every Playwright run the tests start (they get it as
 * `CHROMIUM_PATH`): Debian's `chromium-headless-shell` where it is installed, the build of Chromium
 * Playwright itself runs for `headless: true`, else Debian's full `chromium` run headless.
 * `CHROMIUM_PATH` names another. The shell costs about a third of the full browser's CPU for the
 * same pages (the browser project: 90 CPU-seconds and 48 s with `chromium`, 33 and 19 s with it).
 */
export const CHROMIUM_EXECUTABLE =
  process.env.CHROMIUM_PATH ??
  (existsSync('/usr/bin/chromium-headless-shell')
    ? '/usr/bin/chromium-headless-shell'
    : '/usr/bin/chromium')

/**
 * Debian's Chromium, headless; the background-networking flags keep it off this closed network.
 * `args` adds flags (`--ignore-certificate-errors-spki-list=...`).
 */
export function chromiumOptions(args: readonly string[] = []): LaunchOptions {
  return {
    executablePath: CHROMIUM_EXECUTABLE,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  }
}

/** A fresh `public/` folder holding MSW's worker script, made as the recipe makes it (`npx msw init`). */
export function initPublicFolder(): string {
  const publicDir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-public-'))
  // --no-save: the worker script alone; without it msw asks whether to save the folder in package.json,
  // and its prompt can spin forever on the closed stdin.
  execFileSync('npx', ['--no-install', 'msw', 'init', publicDir, '--no-save'], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    stdio: 'ignore',
  })
  return publicDir
}
