// taxonomy-mock/testcontainers against the image the global setup built, through podman's
// Docker-compatible API (`podman system service`), as a user's Testcontainers reaches Docker.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
  const mock = await new TaxonomyMockContainer(image)
    .withName(`${prefix}-testcontainers`)
    .withSeed(7)
    .withSize('small')
    .start()
  try {
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
  ['a fixture file', (file: string, _fixture: Fixture) => file],
  ['the fixture itself', (_file: string, fixture: Fixture) => fixture],
])(
  'serves the data given to withData as %s, under the default scenario given to withScenario',
  async (_, data) => {
    const fixture = createTaxonomy({ seed: 3, size: 'small' }).toFixture()
    const json = JSON.stringify(fixture)
    const file = join(dir, 'fixture.json')
    writeFileSync(file, json)
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
