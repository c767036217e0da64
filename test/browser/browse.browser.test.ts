import { expect, it } from 'vitest'
import { INDEX_SUBS_PER_DISCIPLINE } from '../../src/http/browse.js'
import { startTestServer } from '../helpers/server.js'
import { useChromium } from './chromium.js'

const browser = useChromium()

it('lists the medium dataset on / and a link shows exactly what the API returns', async () => {
  const server = await startTestServer({ seed: 42, size: 'medium' })
  const page = await browser().newPage()
  // How long the first index takes to build: `npm run bench -- Browse`.
  await page.goto(`${server.url}/`)
  expect(await page.textContent('body')).toContain('Accepted key: taxonomy-mock-key')
  const links = await page.$$eval('a[href^="/browse/sub_disciplines/"]', (anchors) =>
    anchors.map((a) => a.getAttribute('href')!),
  )
  expect(links.length).toBe(countListed(server))

  await page.click(`a[href="${links[3]}"]`)
  await page.waitForSelector('#api-json')
  const shown = JSON.parse((await page.textContent('#api-json'))!)
  const slug = decodeURIComponent(links[3]!.split('/').at(-1)!)
  const api = await fetch(`${server.url}/api/v2/sub_disciplines/${encodeURIComponent(slug)}`, {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
  })
  expect(shown).toEqual(await api.json())

  await page.goBack()
  await page.click('a[href^="/browse/disciplines/"]')
  await page.waitForSelector('#api-json')
  const discipline = JSON.parse((await page.textContent('#api-json'))!)
  expect(discipline.sub_disciplines_count).toBe(discipline.sub_disciplines.length)
})

/**
 * Every sub-discipline is listed under each of its disciplines, once per discipline: a discipline
 * under several domains lists them under the first (so the page stays linear in the data).
 */
function countListed(server: Awaited<ReturnType<typeof startTestServer>>): number {
  const { taxonomy } = server.resolver.options
  return taxonomy.disciplines.reduce(
    (sum, discipline) =>
      sum + Math.min(taxonomy.subDisciplinesOf(discipline).length, INDEX_SUBS_PER_DISCIPLINE),
    0,
  )
}
