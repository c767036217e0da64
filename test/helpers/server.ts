import { afterEach } from 'vitest'
import { startServer, type RunningServer, type StartServerOptions } from '../../src/server/index.js'

const open: RunningServer[] = []

/** Starts a server on a free loopback port; it is closed after the test. */
export async function startTestServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const server = await startServer({ port: 0, ...options })
  open.push(server)
  return server
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()))
})
