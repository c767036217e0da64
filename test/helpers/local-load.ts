import { Agent, request } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'

/** A port free on 127.0.0.1 a moment ago, for a server that must be told its port up front. */
export function freePort(): Promise<number> {
  const server = createServer()
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    }),
  )
}

/** Sends `count` requests for `/nope` over `connections` keep-alive connections; resolves with how many got an answer. */
export async function load(url: string, count: number, connections = 8): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  let answered = 0
  let next = 0
  const worker = async () => {
    while (next++ < count) {
      await new Promise<void>((resolve) => {
        const req = request(`${url}/nope`, { agent }, (res) => {
          res.resume()
          res.on('end', () => (answered++, resolve()))
        })
        req.on('error', () => resolve())
        req.end()
      })
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  agent.destroy()
  return answered
}
