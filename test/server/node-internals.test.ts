import { expect, it, vi } from 'vitest'
import { startServer } from '../../src/server/server.js'

it('finds every internal it uses on this Node, and says nothing', async () => {
  const warning = vi.fn()
  process.on('warning', warning)
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  try {
    expect((await fetch(`${server.url}/__health`)).status).toBe(200)
  } finally {
    await server.close()
    process.off('warning', warning)
  }
  expect(warning.mock.calls.filter(([w]) => (w as Error).name === 'TaxonomyMockWarning')).toEqual(
    [],
  )
})
