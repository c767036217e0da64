import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../test/helpers/local-load.js'
import { compressedSize, podman } from '../test/helpers/podman.js'
import { buildImages } from '../test/containers/images.js'
import { median, spreadOf, type Check } from './lib.js'
import { KEY } from './wrk.js'

const MB = 1024 * 1024

/**
 * Wall time from `podman run` to the first 200 for `path` on the published port (the answer read
 * whole), then the container removed before the next run.
 */
async function runToFirstAnswer(
  name: string,
  args: readonly string[],
  path: string,
): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  await podman(['run', '-d', '--name', name, '-p', `127.0.0.1:${port}:4477`, ...args])
  try {
    for (let attempt = 0; attempt < 20_000; attempt++) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers: { authorization: `Bearer ${KEY}` },
      }).catch(() => undefined)
      if (response?.status === 200) {
        await response.arrayBuffer()
        return performance.now() - started
      }
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    throw new Error(`${name} never answered 200 for ${path}`)
  } finally {
    await podman(['rm', '-f', '-t', '0', name])
  }
}

/**
 * The image of the Containerfile, built as the container tests build it (on a stand-in for the
 * official Node image: Node's binary and its libraries FROM scratch): its compressed size, and
 * `podman run` to the first 200 against a bare `node:http` script run by the same base image, in
 * alternating rounds. Skipped, with a line, where podman is not installed.
 */
export async function benchImage(rounds = 7): Promise<Check[]> {
  if (spawnSync('podman', ['--version']).status !== 0) {
    console.log('\n(container image: podman is not installed here; skipped)')
    return []
  }
  const { images, teardown } = await buildImages()
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-bench-image-'))
  try {
    const size = await compressedSize(images.image)
    const bare = join(dir, 'bare-server.cjs')
    writeFileSync(
      bare,
      `require('node:http').createServer((request, response) => response.end('{}')).listen(4477, '0.0.0.0')\n`,
    )
    const path = '/api/v2/disciplines/history'
    const mock: number[] = []
    const reference: number[] = []
    for (let round = -1; round < rounds; round++) {
      const name = `${images.prefix}-bench-${round + 1}`
      const bareMs = await runToFirstAnswer(
        `${name}-bare`,
        ['-v', `${bare}:/bare.cjs:ro,Z`, images.base, '/usr/local/bin/node', '/bare.cjs'],
        path,
      )
      const mockMs = await runToFirstAnswer(`${name}-mock`, ['--read-only', images.image], path)
      if (round >= 0) (reference.push(bareMs), mock.push(mockMs))
    }
    const ms = median(mock)
    const ratio = spreadOf(mock.map((value, i) => value / reference[i]!))
    return [
      {
        name: 'image size, `podman save` then gzip (Node 20 and its libraries, the package, @redis/client)',
        value: `${(size / MB).toFixed(1)} MB`,
        target: '<= 50 MB',
        ok: size <= 50 * MB,
        figure: size / MB,
      },
      {
        name: `\`podman run\` to the first 200 (a record, read-only root), vs a bare \`node:http\` script in the same base image (median of ${rounds} A/B rounds)`,
        value: `${ms.toFixed(0)} ms (range ${Math.min(...mock).toFixed(0)}–${Math.max(...mock).toFixed(0)}); ${ratio.median.toFixed(2)}x bare (IQR ${ratio.q1.toFixed(2)}–${ratio.q3.toFixed(2)}; bare ${median(reference).toFixed(0)} ms)`,
        target: '<= 1000 ms',
        ok: ms <= 1000,
        figure: ms,
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await teardown()
  }
}
