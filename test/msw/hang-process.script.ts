// A plain Node script, no test runner to keep it alive: the README's `hangAnswers` example.
import { setupServer } from 'msw/node'
import { createMock } from '../../src/msw/index.js'

const mock = createMock({ seed: 42, size: 'small' })
const server = setupServer(...mock.handlers)
server.listen()
server.use(...mock.hangAnswers())
try {
  await fetch('http://api.example.test/api/v2/disciplines/pharmacology', {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
    signal: AbortSignal.timeout(Number(process.argv[2] ?? 200)),
  })
  console.log('answered')
} catch (error) {
  console.log(`rejected ${(error as Error).name}`)
}
server.close()
