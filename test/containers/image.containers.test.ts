import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, expect, inject, it } from 'vitest'
import { startTestServer } from '../helpers/server.js'
import { until } from '../helpers/clock.js'
import { compressedSize, podman, publishedPort, runContainer } from '../helpers/podman.js'

const { env, image, prefix, readme } = inject('containers')
Object.assign(process.env, env)

const PACKAGE = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as {
  version: string
  license: string
}
const AUTH = { authorization: 'Bearer taxonomy-mock-key' }
const MB = 1024 * 1024
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Starts the image with `args` for podman run; its URL on loopback once /__health answers 200. */
async function startImage(
  name: string,
  args: readonly string[] = [],
  command: readonly string[] = [],
) {
  await runContainer(`${prefix}-${name}`, [
    '-p',
    '127.0.0.1::4477',
    // The health check's timer needs systemd; the tests run the check themselves.
    '--health-interval',
    'disable',
    ...args,
    image,
    ...command,
  ])
  const url = `http://127.0.0.1:${await publishedPort(`${prefix}-${name}`)}`
  await until(
    async () => (await fetch(`${url}/__health`).catch(() => undefined))?.status === 200,
    `${name} answering /__health`,
  )
  return { name: `${prefix}-${name}`, url }
}

/** What a client sees of an answer: status, the headers that say what it is, and the body's bytes. */
async function answerOf(url: string, path: string, headers: Record<string, string> = AUTH) {
  const response = await fetch(url + path, { headers })
  return {
    path,
    status: response.status,
    type: response.headers.get('content-type'),
    dataset: response.headers.get('x-taxonomy-mock-dataset'),
    body: Buffer.from(await response.arrayBuffer()).toString('base64'),
  }
}

let inspected: { Config: { User: string; Labels: Record<string, string>; Env: string[] } }

beforeAll(async () => {
  inspected = JSON.parse(await podman(['image', 'inspect', image]))[0]
})

it('runs as a non-root user, with labels naming the source, version, license and data format', async () => {
  expect(inspected.Config.User).toBe('10001:10001')
  const { name, url } = await startImage('user')
  expect(await podman(['exec', name, '/usr/local/bin/node', '-p', 'process.getuid()'])).toBe(
    '10001',
  )
  const { dataset } = (await (await fetch(`${url}/__health`)).json()) as {
    dataset: { format: string }
  }
  expect(inspected.Config.Labels).toMatchObject({
    'org.opencontainers.image.version': PACKAGE.version,
    'org.opencontainers.image.licenses': PACKAGE.license,
    'org.opencontainers.image.source': 'https://github.com/taxonomy-mock/taxonomy-mock',
    'io.github.taxonomy-mock.dataset-format': dataset.format,
  })
})

it('holds Node, the package and its runtime dependency: no shell, no npm', async () => {
  const { name } = await startImage('contents')
  await expect(podman(['exec', name, '/bin/sh', '-c', 'true'])).rejects.toThrow()
  const present = await podman([
    'exec',
    name,
    '/usr/local/bin/node',
    '-p',
    `['/bin/sh','/usr/local/bin/npm','/app/node_modules/taxonomy-mock/package.json','/app/node_modules/@redis/client/package.json'].map((f) => require('fs').existsSync(f)).join()`,
  ])
  expect(present).toBe('false,false,true,true')
})

it('is at most 50 MB compressed (podman save | gzip)', async () => {
  const size = await compressedSize(image)
  console.log(`image ${image}: ${(size / MB).toFixed(1)} MB compressed`)
  expect(size).toBeLessThanOrEqual(50 * MB)
}, 300_000)

it('serves from a read-only root filesystem', async () => {
  const { name, url } = await startImage('read-only', ['--read-only'])
  expect((await answerOf(url, '/api/v2/disciplines/history')).status).toBe(200)
  await expect(
    podman([
      'exec',
      name,
      '/usr/local/bin/node',
      '-e',
      `require('fs').writeFileSync('/app/x', '')`,
    ]),
  ).rejects.toThrow(/EROFS/)
})

it('passes its health check while it serves, and fails it where nothing answers', async () => {
  const { name } = await startImage('health', ['--read-only'])
  await podman(['healthcheck', 'run', name])
  expect(await podman(['inspect', name, '--format', '{{.State.Health.Status}}'])).toBe('healthy')
  // The same check against a port nothing listens on fails: the check can fail.
  await expect(
    podman([
      'exec',
      '-e',
      'TAXONOMY_MOCK_PORT=1',
      name,
      '/usr/local/bin/node',
      '/app/healthcheck.cjs',
    ]),
  ).rejects.toThrow()
})

it('answers on IPv6 as well as IPv4: a pod on an IPv6-only cluster is probed at its IPv6 address', async () => {
  // The published port reaches it over IPv4 (startImage); inside, Node asks over IPv6 loopback.
  const { name } = await startImage('ipv6')
  const status = await podman([
    'exec',
    name,
    '/usr/local/bin/node',
    '-e',
    "require('node:http').get('http://[::1]:4477/__health', (r) => console.log(r.statusCode)).on('error', (e) => console.log(e.code))",
  ])
  expect(status).toBe('200')
})

it('takes its settings from TAXONOMY_MOCK_* variables', async () => {
  const { url } = await startImage('settings', [
    '-e',
    'TAXONOMY_MOCK_SEED=7',
    '-e',
    'TAXONOMY_MOCK_API_KEYS=container-key-1',
  ])
  const health = (await (await fetch(`${url}/__health`)).json()) as { dataset: { seed: number } }
  expect(health.dataset.seed).toBe(7)
  const path = '/api/v2/disciplines/anything'
  expect((await answerOf(url, path, AUTH)).status).toBe(401)
  expect((await answerOf(url, path, { authorization: 'Bearer container-key-1' })).status).not.toBe(
    401,
  )
})

it('answers byte for byte as the in-process server does', async () => {
  const [{ url }, local] = await Promise.all([startImage('bytes'), startTestServer({ seed: 42 })])
  const paths = ['/__health', '/openapi.json', '/api/v2/disciplines/nope', '/']
  // The records the index page links to, as their page and as the API's JSON.
  const index = await (await fetch(`${local.url}/`)).text()
  const links = [...new Set([...index.matchAll(/href="\/browse(\/[^"]+)"/g)].map((m) => m[1]!))]
  for (const link of links.slice(0, 30)) paths.push(`/browse${link}`, `/api/v2${link}`)
  expect(paths.length).toBeGreaterThan(60)
  for (const path of paths) {
    expect(await answerOf(url, path), path).toEqual(await answerOf(local.url, path))
  }
  expect((await answerOf(url, '/api/v2/disciplines/history', {})).status).toBe(401)
})

it('ends on SIGTERM with exit 0 within 2 s under load', async () => {
  const { name, url } = await startImage('sigterm')
  const path = `${url}/api/v2/disciplines/history`
  let answered = 0
  let stopping = false
  // Eight clients in a loop until the server is gone (bounded: 100,000 requests at most).
  const clients = Array.from({ length: 8 }, async () => {
    for (let n = 0; n < 12_500 && !stopping; n++) {
      const response = await fetch(path, { headers: AUTH }).catch(() => undefined)
      if (response === undefined) return
      await response.arrayBuffer()
      answered++
    }
  })
  await until(() => answered >= 200, 'the load under way')
  // `podman stop -t 2` sends SIGTERM, and SIGKILL (exit 137) if the process is still there after 2 s.
  await podman(['stop', '-t', '2', name])
  stopping = true
  await Promise.all(clients)
  expect(await podman(['inspect', name, '--format', '{{.State.ExitCode}}'])).toBe('0')
})

it('runs as the README says: its build line made the image of these tests, its run line serves it on port 4477', async () => {
  // The global setup ran the build line as written, its default base the stand-in under that name.
  expect(readme.build).toMatch(/ -t taxonomy-mock \.$/)
  expect(image).toBe('localhost/taxonomy-mock')
  const run = spawn('sh', ['-c', readme.run], { cwd: ROOT, detached: true })
  let output = ''
  run.stdout.on('data', (chunk: Buffer) => (output += chunk))
  run.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => run.on('exit', resolve))
  const url = 'http://127.0.0.1:4477'
  try {
    await until(
      async () =>
        run.exitCode !== null ||
        (await fetch(`${url}/__health`).catch(() => undefined))?.status === 200,
      `${readme.run} answering /__health`,
    )
    expect(run.exitCode, output).toBeNull()
    const [id, ...others] = (await podman(['ps', '-q', '--filter', `ancestor=${image}`])).split(
      '\n',
    )
    expect(others).toEqual([])
    expect((await answerOf(url, '/api/v2/disciplines/history')).status).toBe(200)
    // Stopped as `podman stop` stops it: the line ends with exit 0, the container removed (--rm).
    await podman(['stop', id!])
    expect(await exited, output).toBe(0)
    expect(await podman(['ps', '-aq', '--filter', `id=${id}`])).toBe('')
  } finally {
    if (run.exitCode === null) process.kill(-run.pid!, 'SIGKILL')
  }
})
