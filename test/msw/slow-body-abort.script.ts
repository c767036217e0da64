// A plain Node script, run with --expose-gc: a client aborts a `slow-body` answer after its
// headers, once a garbage collection has run (which collected the Request its signal followed).
import { setupServer } from 'msw/node'
import { createMock } from '../../src/msw/index.js'

const mock = createMock({ seed: 42, size: 'small' })
const server = setupServer(...mock.handlers)
server.listen()
server.use(...mock.withScenario({ kind: 'slow-body', duration: 20_000 }))
const client = new AbortController()
const response = await fetch('http://api.example.test/api/v2/disciplines/pharmacology', {
  headers: { authorization: 'Bearer taxonomy-mock-key' },
  signal: client.signal,
})
const pause = () => new Promise((resolve) => setTimeout(resolve, 100))
await pause()
;(globalThis as { gc?: () => void }).gc?.()
await pause()
client.abort()
try {
  await response.text()
  console.log('answered')
} catch (error) {
  console.log(`rejected ${(error as Error).name}`)
}
server.close()
