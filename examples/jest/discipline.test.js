import { hideSlug } from 'taxonomy-mock/msw'
import { server } from './jest.setup.js'

const API = 'https://taxonomy.example.com/api/v2'
const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }

test('loads a sub-discipline with its disciplines and topics', async () => {
  const response = await fetch(`${API}/sub_disciplines/clinical-pharmacology`, auth)
  const sub = await response.json()
  expect(sub.disciplines.map((d) => d.slug)).toContain('pharmacology')
  expect(sub.topics_count).toBe(sub.topics.length)
})

test('shows a not-found state for a missing slug', async () => {
  server.use(...hideSlug('clinical-pharmacology'))
  const response = await fetch(`${API}/sub_disciplines/clinical-pharmacology`, auth)
  expect(response.status).toBe(404)
})
