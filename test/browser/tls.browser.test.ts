// Chromium over HTTPS, pinning the certificate `--tls` made by the SPKI hash the CLI printed: the
// same answers as over HTTP, and without the pin the browser refuses the certificate.
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Browser, Page } from 'playwright-core'
import { afterAll, expect, it } from 'vitest'
import { createTaxonomy } from '../../src/core/generate.js'
import { spawnCli } from '../helpers/cli.js'
import { connectChromium, launchChromium } from './chromium.js'

const URL_LINE = /^taxonomy-mock listening on (https?:\/\/127\.0\.0\.1:\d+) /
const slug = createTaxonomy({ size: 'small' }).disciplines[0]!.slug
const browsers: Browser[] = []

afterAll(async () => {
  await Promise.all(browsers.map((browser) => browser.close()))
})

async function startCli(args: string[]) {
  const cli = spawnCli(['--port', '0', '--size', 'small', '--quiet', ...args])
  const url = URL_LINE.exec(await cli.waitFor(URL_LINE))![1]!
  return { cli, url }
}

/** What the page's own fetch sees of an API answer: status, headers (all but Date), body. */
function fetchInPage(page: Page, path: string) {
  return page.evaluate(async (path) => {
    const response = await fetch(path, { headers: { authorization: 'Bearer taxonomy-mock-key' } })
    return {
      status: response.status,
      headers: [...response.headers].filter(([name]) => name !== 'date'),
      body: await response.text(),
    }
  }, path)
}

it('answers Chromium pinning the printed SPKI hash with the same status, headers and body as over HTTP', async () => {
  const caOut = join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-tls-browser-')), 'ca.pem')
  const [https, http] = await Promise.all([
    startCli(['--tls', '--tls-ca-out', caOut]),
    startCli([]),
  ])
  expect(https.url).toMatch(/^https:/)
  const spki = /^ {2}spki sha256: +(\S+) /.exec(await https.cli.waitFor(/^ {2}spki sha256:/))![1]!
  const browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`])
  browsers.push(browser)
  const [secure, plain] = [await browser.newPage(), await browser.newPage()]
  expect((await secure.goto(`${https.url}/`))!.status()).toBe(200)
  await plain.goto(`${http.url}/`)
  expect(await secure.textContent('body')).toBe(await plain.textContent('body'))
  // The browse page forbids scripts from fetching (its CSP); a JSON answer's page does not.
  await Promise.all([secure.goto(`${https.url}/__health`), plain.goto(`${http.url}/__health`)])
  for (const path of [`/api/v2/disciplines/${slug}`, '/api/v2/disciplines/nope', '/__health']) {
    const overHttp = await fetchInPage(plain, path)
    const overHttps = await fetchInPage(secure, path)
    expect(overHttps).toEqual(overHttp)
  }
  expect((await fetchInPage(secure, `/api/v2/disciplines/${slug}`)).status).toBe(200)
})

it('is refused by Chromium without the pin: the certificate is self-signed', async () => {
  const { url } = await startCli([
    '--tls',
    '--tls-ca-out',
    join(mkdtempSync(join(tmpdir(), 'taxonomy-mock-tls-browser-')), 'ca.pem'),
  ])
  const browser = await connectChromium()
  browsers.push(browser)
  const page = await browser.newPage()
  await expect(page.goto(`${url}/__health`)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/)
})
