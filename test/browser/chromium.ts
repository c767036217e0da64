import { createServer, type Server } from 'node:http'
import { fileURLToPath } from 'node:url'
import { readFile } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, inject } from 'vitest'
import { PAGE_HANG_MS } from '../helpers/hang.js'
import { chromiumOptions, initPublicFolder } from './chromium-launch.js'

/**
 * Debian's Chromium, headless, launched for the caller alone (see chromium-launch.ts).
 * `args` adds flags (`--ignore-certificate-errors-spki-list=...`).
 */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return withHangTimeouts(await chromium.launch(chromiumOptions(args)))
}

/**
 * The browser project's one Chromium (test/browser/global-setup.ts), connected to; one launched
 * for the caller where no run launched it (another project). Closing it closes what this file
 * opened on it, and, when launched here, the browser.
 */
export async function connectChromium(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint')
  return endpoint === undefined
    ? launchChromium()
    : withHangTimeouts(await chromium.connect(endpoint))
}

/**
 * Every page's actions and waits catch a hang only, as the tests' own timeouts do. `newPage` makes
 * its context through `newContext`, so the one wrapper sets both.
 */
function withHangTimeouts(browser: Browser): Browser {
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (options) => {
    const context = await newContext(options)
    context.setDefaultTimeout(PAGE_HANG_MS)
    return context
  }
  return browser
}

/**
 * Debian's Chromium for every test of a file: connected to before the first, closed after the last.
 * Call at the top of the file; the function returned gives the browser inside a test.
 */
export function useChromium(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await connectChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (browser === undefined)
      throw new Error('Chromium is not running: call useChromium() at the top of the file')
    return browser
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
}

/** Serves a folder on 127.0.0.1 and a free port, for a static build such as storybook-static. */
export async function serveFolder(folder: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const file = join(folder, path === '/' ? 'index.html' : normalize(path))
    readFile(file).then(
      (body) =>
        response
          .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
          .end(body),
      () => response.writeHead(404).end(),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

/** Serves a few files from memory on 127.0.0.1 and a free port. */
export async function serveFiles(
  files: Record<string, string | Uint8Array>,
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    const file = files[path === '/' ? '/index.html' : path]
    if (file === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(path)] ?? 'text/html',
      'service-worker-allowed': '/',
    })
    response.end(file)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }
}

/**
 * A `public/` folder holding MSW's worker script, made as the recipe makes it (`npx msw init`): the
 * one the browser project's global setup made for every file (read only), or a fresh one.
 */
export function createPublicFolder(): string {
  return inject('mswPublicFolder') ?? initPublicFolder()
}

/**
 * Serves a bundled page with MSW's worker script made as the README makes it (`npx msw init`), on
 * 127.0.0.1: `index.html` with a `#root` and `main.js`.
 */
export async function serveWorkerPage(mainJs: string): Promise<{ url: string; server: Server }> {
  const publicDir = createPublicFolder()
  return serveFiles({
    '/index.html':
      '<!doctype html><html><body><div id="root"></div><script type="module" src="/main.js"></script></body></html>',
    '/main.js': mainJs,
    '/mockServiceWorker.js': await readFile(join(publicDir, 'mockServiceWorker.js')),
  })
}

/** Bundles a page's script as an app's bundler would, `taxonomy-mock/msw` the built package. */
export async function bundlePage(entry: string): Promise<string> {
  const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url))
  const bundle = await build({
    entryPoints: [root(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'taxonomy-mock',
        setup(b) {
          b.onResolve({ filter: /^taxonomy-mock\/msw$/ }, () => ({
            path: root('dist/msw/index.js'),
          }))
        },
      },
    ],
  })
  return bundle.outputFiles[0]!.text
}
