// taxonomy-mock/testcontainers against the image the global setup built, through podman's
// Docker-compatible API (`podman system service`), as a user's Testcontainers reaches Docker.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { createTaxonomy, type Fixture } from '../../src/index.js'
import { TaxonomyMockContainer } from '../../src/testcontainers/index.js'
import '../../src/matchers/vitest.js'
import { until } from '../helpers/clock.js'
import { layOut } from '../helpers/readme.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

const { env, image, prefix } = inject('containers')
const AUTH = { authorization: 'Bearer taxonomy-mock-key' }

let service: ChildProcess
let dir = ''

/** Does the Docker-compatible API answer on the socket? */
function pings(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    request({ socketPath: socket, path: '/_ping' }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
      .on('error', () => resolve(false))
      .end()
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-testcontainers-'))
  const socket = join(dir, 'podman.sock')
  service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  })
  await until(() => pings(socket), 'podman system service answering /_ping')
  // What a user of Podman sets for Testcontainers: its socket, no reaper (its image is pulled
  // from a registry), and the host's address as an IP literal.
  process.env.DOCKER_HOST = `unix://${socket}`
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true'
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1'
})

afterAll(async () => {
  if (service.exitCode === null && service.signalCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve))
    service.kill('SIGTERM')
    await exited
  }
  rmSync(dir, { recursive: true, force: true })
})

it('starts the image with a seed and size, answers both endpoints, and sets a session’s scenario', async () => {
  const taxonomy = createTaxonomy({ seed: 7, size: 'small' })
  const discipline = taxonomy.disciplines[0]!
  const sub = taxonomy.subDisciplines[0]!
  const container = new TaxonomyMockContainer(image)
    .withName(`${prefix}-testcontainers`)
    .withSeed(7)
    .withSize('small')
    .withAdminKey('admin-key-SECRET-1234')
  const mock = await container.start()
  try {
    // Testcontainers keeps the environment, admin key included, on both objects: not shown.
    expect(inspect(container, { depth: 6 })).not.toContain('SECRET')
    expect(inspect(mock, { depth: 6 })).not.toContain('SECRET')
    expect(inspect(mock)).toContain(mock.getUrl())
    const url = mock.getUrl()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const health = (await (await fetch(`${url}/__health`)).json()) as { dataset: unknown }
    expect(health.dataset).toMatchObject({ seed: 7, size: 'small' })
    const one = await fetch(`${url}/api/v2/disciplines/${discipline.slug}`, { headers: AUTH })
    expect(one.status).toBe(200)
    expect(await one.json()).toMatchObject({ slug: discipline.slug, name: discipline.name })
    const two = await fetch(`${url}/api/v2/sub_disciplines/${sub.slug}`, { headers: AUTH })
    expect(two.status).toBe(200)
    expect(await two.json()).toMatchObject({ slug: sub.slug, name: sub.name })

    // The admin API through the published port: the container's admin key, sent by session().
    const session = await mock.session()
    await session.use('unavailable')
    const path = `/api/v2/disciplines/${discipline.slug}`
    const refused = await fetch(`${url}${path}`, { headers: { ...AUTH, ...session.headers } })
    expect(refused.status).toBe(503)
    expect((await fetch(`${session.sessionUrl}${path}`, { headers: AUTH })).status).toBe(503)
    // Another session, and requests that name none, are answered as usual.
    expect((await fetch(`${url}${path}`, { headers: AUTH })).status).toBe(200)
    const other = await mock.session('another')
    expect((await fetch(`${url}${path}`, { headers: { ...AUTH, ...other.headers } })).status).toBe(
      200,
    )
    expect((await session.journal()).map((entry) => entry.status)).toEqual([503, 503])
    // The matchers read it as a server session, with the container's admin key.
    await expect(session).toHaveRequested({ slug: discipline.slug, status: 503, times: 2 })
    await session.use(null)
    expect(
      (await fetch(`${url}${path}`, { headers: { ...AUTH, ...session.headers } })).status,
    ).toBe(200)
    await session.forget()
  } finally {
    await mock.stop()
  }
})

it.each([
  ['a fixture file only its owner may read (umask 077)', (file: string, _fixture: Fixture) => file],
  ['the fixture itself', (_file: string, fixture: Fixture) => fixture],
])(
  'serves the data given to withData as %s, under the default scenario given to withScenario',
  async (_, data) => {
    const fixture = createTaxonomy({ seed: 3, size: 'small' }).toFixture()
    const json = JSON.stringify(fixture)
    const file = join(dir, 'fixture.json')
    writeFileSync(file, json)
    // The image's user (10001) is not its owner.
    chmodSync(file, 0o600)
    const discipline = fixture.disciplines[1]!
    const mock = await new TaxonomyMockContainer(image)
      .withName(`${prefix}-testcontainers-data`)
      .withData(data(file, fixture))
      .withScenario({ kind: 'unavailable', times: 1 })
      .start()
    try {
      const path = `${mock.getUrl()}/api/v2/disciplines/${discipline.slug}`
      expect((await fetch(path, { headers: AUTH })).status).toBe(503)
      const answer = await fetch(path, { headers: AUTH })
      expect(answer.status).toBe(200)
      expect(await answer.json()).toMatchObject({ slug: discipline.slug, name: discipline.name })
      // The file the server read holds these bytes.
      const sha256 = createHash('sha256').update(json).digest('hex')
      expect(answer.headers.get('x-taxonomy-mock-dataset')).toContain(`sha256=${sha256};`)
    } finally {
      await mock.stop()
    }
  },
)

it.each([
  [
    'a seed that is not an integer',
    'TAXONOMY_MOCK_SEED must be',
    (c: TaxonomyMockContainer) => c.withSeed(1.5),
  ],
  [
    'a fixture that is not one',
    'invalid --data file',
    (c: TaxonomyMockContainer) => c.withData({ format: 'nope' } as unknown as Fixture),
  ],
])(
  "fails start() with the server's own line when it exits at once: %s",
  async (_, line, configure) => {
    const container = configure(
      new TaxonomyMockContainer(image).withName(`${prefix}-testcontainers-exits`),
    )
    // Before the startup timeout's "URL /__health not accessible after 60000ms", which hid it.
    await expect(container.start()).rejects.toThrow(
      new RegExp(`Container exited during HTTP healthCheck[\\s\\S]*taxonomy-mock: ${line}`),
    )
  },
)

it('passes the flags given to withFlags to serve, after its own', async () => {
  const { slug } = createTaxonomy({ seed: 42, size: 'small' }).disciplines[0]!
  const mock = await new TaxonomyMockContainer(image)
    .withName(`${prefix}-testcontainers-flags`)
    .withSeed(42)
    .withSize('small')
    .withFlags('--any-key')
    .start()
  try {
    const health = (await (await fetch(`${mock.getUrl()}/__health`)).json()) as { dataset: unknown }
    expect(health.dataset).toMatchObject({ size: 'small' })
    const any = { authorization: 'Bearer any-key-at-all' }
    const path = `${mock.getUrl()}/api/v2/disciplines/${slug}`
    expect((await fetch(path, { headers: any })).status).toBe(200)
  } finally {
    await mock.stop()
  }
})

it('runs the recipe as written: its test file, with Vitest, against the image the run built', async () => {
  // Inside the repository, so that `taxonomy-mock` resolves to this package (its own name) and
  // `testcontainers` and `vitest` to its devDependencies, as they would from a user's node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  const recipe = mkdtempSync(join(ROOT, '.tmp/testcontainers-recipe-'))
  try {
    expect(layOut('docs/recipes/testcontainers.md', recipe)).toEqual(['taxonomy.test.ts'])
    // A config of its own, else Vitest finds the repository's, several folders up.
    writeFileSync(join(recipe, 'vitest.config.mjs'), 'export default {}\n')
    // Nothing of the Vitest running this file reaches the one it starts.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith('VITEST') && name !== 'FORCE_COLOR',
      ),
    )
    const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const vitest = spawn(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', recipe],
        { cwd: recipe, env: { ...env, TAXONOMY_MOCK_IMAGE: image, CI: 'true', NO_COLOR: '1' } },
      )
      let output = ''
      vitest.stdout.on('data', (chunk: Buffer) => (output += chunk))
      vitest.stderr.on('data', (chunk: Buffer) => (output += chunk))
      vitest.on('close', (code) => resolve({ code, output }))
    })
    expect(run.code, run.output).toBe(0)
    expect(run.output).toMatch(/Tests\s+2 passed/)
  } finally {
    rmSync(recipe, { recursive: true, force: true })
  }
})
