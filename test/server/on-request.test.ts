// `onRequest`, the library's log hook: checked when the server starts, and a hook that throws is
// the caller's problem, said once, never the server's end.
import { expect, it } from 'vitest'
import { startServer } from '../../src/server/index.js'
import { HANG_MS } from '../helpers/hang.js'
import { startTestServer } from '../helpers/server.js'

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }

it('refuses an onRequest that is no function, and options that are no object, naming them', async () => {
  await expect(startServer({ port: 0, onRequest: 'x' as never })).rejects.toMatchObject({
    name: 'TypeError',
    option: 'onRequest',
    message: '`onRequest` must be a function; received "x" (string)',
  })
  await expect(startServer(null as never)).rejects.toThrow(
    'options must be an object; received null',
  )
})

it('goes on answering when onRequest throws, and says so once', async () => {
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(warning.message)
  process.on('warning', onWarning)
  try {
    let calls = 0
    const server = await startTestServer({
      onRequest: () => {
        calls++
        throw new Error('logger down')
      },
    })
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(`${server.url}/api/v2/disciplines/history`, { headers: AUTH })
      expect(answer.status).toBe(200)
      await answer.text()
    }
    // Each answer is sent before its hook is called: the third call follows the third answer.
    await expect.poll(() => calls, { timeout: HANG_MS }).toBe(3)
    await expect
      .poll(() => warnings)
      .toEqual(['onRequest threw (logger down); the server goes on, and says this once'])
  } finally {
    process.off('warning', onWarning)
  }
})
