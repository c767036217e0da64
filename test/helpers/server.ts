import { vi } from 'vitest'
import { afterEachSteps } from './after-each.js'
import { startServer, type RunningServer, type StartServerOptions } from '../../src/server/index.js'
import { SERVER_LIMITS, type ServerLimits } from '../../src/server/limits.js'
import { startServerWithLimits } from '../../src/server/server.js'

const open: RunningServer[] = []

const HOUR = 3_600_000

/**
 * Limits whose timeouts (headers, request, keep-alive, close grace) never run out within a test: under them, a
 * server that waits for one of them instead of acting at once hangs, and the test's timeout says so.
 */
export const UNTIMED: ServerLimits = {
  ...SERVER_LIMITS,
  headersTimeoutMs: HOUR,
  requestTimeoutMs: HOUR,
  keepAliveTimeoutMs: HOUR,
  closeGraceMs: HOUR,
}

/** Starts a server on a free loopback port (with other limits if given); it is closed after the test. */
export async function startTestServer(
  options: StartServerOptions = {},
  limits?: ServerLimits,
): Promise<RunningServer> {
  const server = await (limits === undefined
    ? startServer({ port: 0, ...options })
    : startServerWithLimits({ port: 0, ...options }, limits))
  open.push(server)
  return server
}

afterEachSteps.add(async () => {
  // On the real clock, whatever the test faked: a close's grace must be able to run out.
  vi.useRealTimers()
  await Promise.all(open.splice(0).map((server) => server.close()))
})
