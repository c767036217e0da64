import { expect, it } from 'vitest'
import { presetPatch } from '../../src/core/presets.js'
import { createFetchHandler } from '../../src/http/fetch.js'
import { emptyTaxonomy } from '../helpers/fixtures.js'

const EMPTY = emptyTaxonomy()
const WHY =
  "links its records to the data's first domain and discipline, and the data has no domain"

it('refuses a preset over data with no domain or discipline: an option error, and a 400 for a session', async () => {
  expect(() => presetPatch(EMPTY, 'empty-children')).toThrow(`\`preset\` ${WHY}`)
  const handle = createFetchHandler({ taxonomy: EMPTY, adminKey: 'admin-key-1234' })
  const answer = await handle(
    new Request('http://x/__admin/sessions/e1/data', {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': 'admin-key-1234' },
      body: '{"preset":"long-names"}',
    }),
  )
  expect(answer.status).toBe(400)
  expect(await answer.json()).toMatchObject({ issues: [{ path: 'preset', message: WHY }] })
})
