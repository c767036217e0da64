import { createConnection } from 'node:net'
import { expect, it } from 'vitest'
import { toDisciplineRecord } from '../../src/core/records.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D, D2 } from '../cases/scenario-cases.js'
import { startTestServer } from '../helpers/server.js'

// Apart from test/kinds/empty.test.ts, where MSW listens: msw 3 intercepts raw sockets too, and
// takes two pipelined requests on one for its own.
const [first, second] = taxonomy.disciplines
const body = (record: typeof first) => JSON.stringify(toDisciplineRecord(taxonomy, record!))

it('empty: answers pipelined before it on the connection are sent whole first', async () => {
  const server = await startTestServer({
    taxonomy,
    scenario: { kind: 'empty', slug: first!.slug },
  })
  const { hostname, port } = new URL(server.url)
  const received = await new Promise<string>((resolve, reject) => {
    const socket = createConnection(Number(port), hostname)
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => resolve(text))
    const get = (path: string) =>
      `GET ${path} HTTP/1.1\r\nhost: x\r\nauthorization: ${AUTH.authorization}\r\n\r\n`
    socket.write(get(D2) + get(D))
  })
  expect(received.endsWith(`\r\n\r\n${body(second)}`)).toBe(true)
  expect(received.match(/HTTP\/1\.1/g)).toHaveLength(1)
})
