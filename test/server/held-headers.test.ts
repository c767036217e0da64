import { createServer, type ServerResponse } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { expect, it } from 'vitest'
import { checkResponseInternals, writeHead } from '../../src/server/node-internals.js'
import { startServer } from '../../src/server/server.js'

const HEADERS = Object.freeze({
  'content-type': 'application/json',
  'content-length': '2',
  'access-control-allow-origin': '*',
  'X-Taxonomy-Mock-Dataset': 'taxonomy-mock/v1; seed=42',
})

/** The raw bytes of one answer, `Date` aside, from a server whose listener writes it with `write`. */
async function rawAnswer(write: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    checkResponseInternals(request.socket, response, () => {})
    write(response)
    response.end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  try {
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.end('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      )
      let text = ''
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
      socket.on('error', reject)
      socket.on('close', () => resolve(text.replace(/Date: [^\r]*/, 'Date: -')))
    })
  } finally {
    server.close()
  }
}

it("hands Node an answer's headers as held, checked once, and the bytes are Node's own", async () => {
  let held: Record<string, unknown> | undefined
  const ours = await rawAnswer((response) => {
    writeHead(response, 200, HEADERS)
    held = response.getHeaders()
  })
  const nodes = await rawAnswer((response) => response.writeHead(200, HEADERS))
  expect(ours).toBe(nodes)
  expect(ours).toContain('X-Taxonomy-Mock-Dataset: taxonomy-mock/v1; seed=42\r\n')
  // Held, not handed over to be checked again: Node 20's writeHead keeps what it checks nowhere.
  expect(held).toEqual({
    'content-type': 'application/json',
    'content-length': '2',
    'access-control-allow-origin': '*',
    'x-taxonomy-mock-dataset': 'taxonomy-mock/v1; seed=42',
  })
})

it('writes a field named __proto__ as a field, as Node does (the held headers are made anew with fast properties)', async () => {
  // From JSON: in an object literal, `__proto__` would set the prototype, not make a field.
  const headers = Object.freeze(
    JSON.parse(
      '{"content-type":"application/json","content-length":"2","__proto__":"x"}',
    ) as Record<string, string>,
  )
  const ours = await rawAnswer((response) => writeHead(response, 200, headers))
  expect(ours).toBe(await rawAnswer((response) => response.writeHead(200, headers)))
  expect(ours).toContain('\r\n__proto__: x\r\n')
})

it('leaves headers Node refuses to Node, which refuses them as before', async () => {
  const bad = Object.freeze({ 'x-bad': 'a\nb' })
  let thrown: unknown
  await rawAnswer((response) => {
    try {
      writeHead(response, 200, bad)
    } catch (error) {
      thrown = error
      response.writeHead(500)
    }
  })
  expect((thrown as NodeJS.ErrnoException).code).toBe('ERR_INVALID_CHAR')
})

it('sends the same bytes while closing, when a response already holds `connection: close`', async () => {
  const server = await startServer({ port: 0, seed: 42, size: 'small' })
  const slug = server.resolver.options.taxonomy.disciplines[0]!.slug
  const { port } = new URL(server.url)
  const request = `GET /api/v2/disciplines/${slug} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer taxonomy-mock-key\r\n\r\n`
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(request)
      socket.once('data', () => {
        void server.close()
        socket.write(request)
      })
    })
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => resolve(text))
  })
  const heads = answer.split('HTTP/1.1 ').slice(1)
  expect(heads.length).toBeGreaterThanOrEqual(1)
  for (const head of heads) expect(head).toContain('x-taxonomy-mock-dataset: ')
})
