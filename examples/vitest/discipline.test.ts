import { expect, it } from 'vitest'
import { failWith, hideSlug, rejectKeys } from 'taxonomy-mock/msw'
import { server } from './setup.js'

const API = 'https://taxonomy.example.com/api/v2'
const auth = { headers: { Authorization: 'Bearer taxonomy-mock-key' } }

it('loads a discipline with its domains and sub-disciplines', async () => {
  const response = await fetch(`${API}/disciplines/pharmacology`, auth)
  const discipline = await response.json()
  expect(discipline.name).toBe('Pharmacology')
  expect(discipline.sub_disciplines_count).toBe(discipline.sub_disciplines.length)
})

it('shows a not-found state for a missing slug', async () => {
  server.use(...hideSlug('pharmacology'))
  const response = await fetch(`${API}/disciplines/pharmacology`, auth)
  expect(response.status).toBe(404)
  expect(await response.json()).toEqual({ error: 'Resource not found' })
})

it('handles a rejected key and an outage', async () => {
  server.use(...rejectKeys())
  expect((await fetch(`${API}/disciplines/pharmacology`, auth)).status).toBe(401)
  server.resetHandlers(...failWith(503))
  expect((await fetch(`${API}/disciplines/pharmacology`, auth)).status).toBe(503)
})
