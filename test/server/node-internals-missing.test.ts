import { Socket } from 'node:net'
import { expect, it, vi } from 'vitest'
import {
  checkConnectionInternals,
  checkResponseInternals,
  INTERNALS,
} from '../../src/server/node-internals.js'
import { startServer } from '../../src/server/server.js'

// A socket from no HTTP server lacks every internal, as a future Node might. The self-check runs
// once per process (each test file has its own), so here it sees that socket first.
it('turns off and names each missing internal, and the server still answers', async () => {
  const warn = vi.fn()
  expect(checkConnectionInternals(new Socket(), warn)).toEqual(['parserHook', 'paused'])
  expect(checkResponseInternals(new Socket(), {} as never, warn)).toEqual([
    'httpMessage',
    'outHeaders',
  ])
  expect(warn.mock.calls.map(([message]) => message)).toEqual(
    Object.values(INTERNALS).map(
      (what) =>
        `taxonomy-mock: this Node lacks an internal it uses, so that feature is off: ${what}`,
    ),
  )
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  try {
    const slug = server.resolver.options.taxonomy.disciplines[0]!.slug
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        fetch(`${server.url}/api/v2/disciplines/${slug}`, {
          headers: { authorization: 'Bearer taxonomy-mock-key' },
        }),
      ),
    )
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    const bad = await fetch(`${server.url}/api/v2/disciplines/%zz`, {
      headers: { authorization: 'Bearer taxonomy-mock-key' },
    })
    expect(bad.status).toBe(400)
  } finally {
    await server.close()
  }
})
