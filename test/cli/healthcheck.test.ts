// The container image's health check (deploy/container/healthcheck.cjs), run beside the CLI as the
// image runs it: the port from TAXONOMY_MOCK_PORT, plain HTTP or, for a TLS server, HTTPS.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { childEnv, spawnCli } from '../helpers/cli.js'

const CHECK = fileURLToPath(new URL('../../deploy/container/healthcheck.cjs', import.meta.url))
const URL_LINE = /^taxonomy-mock listening on https?:\/\/127\.0\.0\.1:(\d+) /

/** The health check's exit code against `port`. */
function healthCheck(port: string): Promise<number | null> {
  const child = spawn(process.execPath, [CHECK], {
    env: { ...childEnv(), TAXONOMY_MOCK_PORT: port },
    stdio: 'ignore',
  })
  return new Promise((resolve) => child.on('close', resolve))
}

it.each([[[]], [['--tls']]])('passes while `serve %j` serves', async (flags) => {
  const run = spawnCli(['--port', '0', '--size', 'small', '--quiet', ...flags])
  const port = URL_LINE.exec(await run.waitFor(URL_LINE))![1]!
  expect(await healthCheck(port)).toBe(0)
})

it('fails where nothing answers', async () => {
  expect(await healthCheck('1')).toBe(1)
})
