// `onRequest`, the library's log hook: checked when the server starts, and a hook that throws is
// the caller's problem, said once, never the server's end.
import { expect, it } from 'vitest'
import { formatLogLine } from '../../src/cli/banner.js'
import { startServer, type RequestLogEntry } from '../../src/server/index.js'
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
      .poll(() => warnings, { timeout: HANG_MS })
      .toEqual(['onRequest threw (logger down); the server goes on, and says this once'])
  } finally {
    process.off('warning', onWarning)
  }
})

it.each(['network-error', 'empty', 'reset', 'hang'])(
  'tells a request whose %s fault sends no answer, with status 0 and the fault named',
  async (fault) => {
    const logged: RequestLogEntry[] = []
    const server = await startTestServer({ onRequest: (entry) => logged.push(entry) })
    const asked = fetch(`${server.url}/api/v2/disciplines/history?api_key=s3cret`, {
      headers: { ...AUTH, prefer: `scenario=${fault}` },
    }).catch((error: unknown) => error)
    await expect.poll(() => logged.length, { timeout: HANG_MS }).toBe(1)
    expect(logged[0]).toMatchObject({
      method: 'GET',
      path: '/api/v2/disciplines/history?api_key=[redacted]',
      status: 0,
      fault,
    })
    expect(formatLogLine(logged[0]!)).toMatch(
      new RegExp(
        `^GET /api/v2/disciplines/history\\?api_key=\\[redacted\\] ${fault} \\d+\\.\\dms$`,
      ),
    )
    await server.close()
    expect(await asked).toBeInstanceOf(Error)
  },
)

it('tells a fault that sends a status with both, and the usual answer without a fault', async () => {
  const logged: RequestLogEntry[] = []
  const server = await startTestServer({ onRequest: (entry) => logged.push(entry) })
  for (const prefer of ['scenario=truncated', undefined]) {
    const answer = await fetch(`${server.url}/api/v2/disciplines/history`, {
      headers: { ...AUTH, ...(prefer ? { prefer } : {}) },
    })
    await answer.text().catch(() => '')
  }
  await expect.poll(() => logged.length, { timeout: HANG_MS }).toBe(2)
  expect(logged.map((entry) => [entry.status, entry.fault])).toEqual([
    [200, 'truncated'],
    [200, undefined],
  ])
  expect(Object.keys(logged[1]!)).toEqual(['method', 'path', 'status', 'ms'])
  expect(formatLogLine(logged[0]!)).toMatch(
    /^GET \/api\/v2\/disciplines\/history 200 \d+\.\dms \(truncated\)$/,
  )
})
