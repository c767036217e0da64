import { createHash } from 'node:crypto'
import { createServer } from 'node:net'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { loadDataFile } from '../../src/cli/data-file.js'
import { digestText, toCanonicalJson } from '../../src/core/digest.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { describeDataset } from '../../src/core/identity.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { createDisciplinePatch } from '../../src/core/patch-builder.js'
import { presetPatch } from '../../src/core/presets.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { toSlugTypes } from '../../src/core/slug-types.js'
import { servedDigest } from '../../src/http/dataset.js'
import { createSelfSignedCertificate } from '../../src/server/self-signed.js'
import { runCli, spawnCli } from '../helpers/cli.js'
import { fixturePath } from '../helpers/fixtures.js'
import { startTestServer } from '../helpers/server.js'

const folder = mkdtempSync(join(tmpdir(), 'taxonomy-export-session-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const ADMIN_KEY = 'admin-key-for-export-tests'

async function putData(url: string, session: string, patch: unknown, adminKey?: string) {
  const response = await fetch(`${url}/__admin/sessions/${session}/data`, {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      ...(adminKey ? { 'x-taxonomy-mock-admin-key': adminKey } : {}),
    },
    body: JSON.stringify(patch),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as { dataset: Record<string, unknown> }
}

it("saves a session's data as a fixture, its slug types and a manifest naming it", async () => {
  const server = await startTestServer({ seed: 42, size: 'small' })
  const base = createTaxonomy({ seed: 42, size: 'small' })
  const patch = createDisciplinePatch({
    name: 'Failing Test Field',
    domainIds: [base.domains[0]!.id],
    subDisciplines: 2,
    topics: 3,
  })
  const { dataset } = await putData(server.url, 'failing-test', patch)
  // Another session's data is not the one saved.
  await putData(server.url, 'other', { preset: 'huge-lists' })
  const out = join(folder, 'failing', 'taxonomy.json')
  const types = join(folder, 'failing', 'slugs.d.ts')
  const manifest = join(folder, 'failing', 'manifest.json')
  const { code, stdout, stderr } = await runCli([
    'export',
    '--from',
    server.url,
    '--session',
    'failing-test',
    '--out',
    out,
    '--types',
    types,
    '--manifest',
    manifest,
  ])
  expect({ code, stdout }).toEqual({ code: 0, stdout: [] })
  expect(stderr).toEqual([
    `taxonomy-mock: wrote 206 topics (session failing-test of ${server.url}) to ${out}`,
    `taxonomy-mock: wrote the slugs of 11 disciplines and 42 sub-disciplines to ${types}`,
    `taxonomy-mock: wrote the manifest to ${manifest}`,
  ])
  const patched = patchTaxonomy(base, patch)
  const json = readFileSync(out, 'utf8')
  expect(json).toBe(toFixtureJson(patched))
  expect(readFileSync(types, 'utf8')).toBe(toSlugTypes(patched))
  const sha256 = createHash('sha256').update(json).digest('hex')
  expect(JSON.parse(readFileSync(manifest, 'utf8'))).toMatchObject({
    manifest: 'taxonomy-mock-manifest/v1',
    dataset,
    session: { id: 'failing-test', from: server.url },
    fixture: { file: out, bytes: Buffer.byteLength(json), sha256 },
    counts: { domains: 3, disciplines: 11, sub_disciplines: 42, topics: 206 },
  })
})

it('names in the manifest what a server of the saved fixture names', async () => {
  const server = await startTestServer({ seed: 7, size: 'small' })
  await putData(server.url, 'edge', { preset: 'empty-children' })
  const out = join(folder, 'edge.json')
  const manifest = join(folder, 'edge.manifest.json')
  const exported = await runCli([
    'export',
    ...['--from', server.url, '--session', 'edge', '--out', out, '--manifest', manifest],
  ])
  expect(exported.code).toBe(0)
  const base = createTaxonomy({ seed: 7, size: 'small' })
  expect(readFileSync(out, 'utf8')).toBe(
    toFixtureJson(patchTaxonomy(base, presetPatch(base, 'empty-children'))),
  )
  const served = spawnCli(['--port', '0', '--quiet', '--data', out])
  const url = (await served.waitFor(/listening on/)).match(/http:\/\/\S+/)![0]
  const health = await (await fetch(`${url}/__health`)).json()
  expect(JSON.parse(readFileSync(manifest, 'utf8')).fixture.served).toEqual(health.dataset)
})

it('refuses a --from URL with a query (dropped unsaid, with the path before it), its secret redacted', async () => {
  const server = await startTestServer({ seed: 7, size: 'small' })
  const manifest = join(folder, 'query.manifest.json')
  const from = `${server.url}/?access_token=export-token-0123456789`
  const refused = await runCli([
    'export',
    ...['--from', from, '--session', 'q', '--out', join(folder, 'query.json')],
    ...['--manifest', manifest],
  ])
  expect(refused).toEqual({
    code: 2,
    stdout: [],
    stderr: [
      `taxonomy-mock: --from must be the mock's base URL, without a query or fragment; received "${server.url}/?access_token=[redacted]" (string)`,
    ],
  })
  expect(existsSync(manifest)).toBe(false)
})

it('rebuilds a session of a server that serves a file from that --data file, and only that one', async () => {
  const file = fixturePath('taxonomy-seed-42-small.json')
  const server = await startTestServer({ taxonomy: await loadDataFile(file), adminKey: ADMIN_KEY })
  await putData(server.url, 's1', { preset: 'unicode-names' }, ADMIN_KEY)
  const out = join(folder, 'from-file.json')
  const args = ['export', '--from', server.url, '--session', 's1', '--out', out]
  const withKey = { TAXONOMY_MOCK_ADMIN_KEY: ADMIN_KEY }

  const refused = await runCli(args)
  expect(refused).toEqual({
    code: 1,
    stdout: [],
    stderr: [
      `taxonomy-mock: ${server.url}/__admin/sessions/s1/data answered 403: Forbidden: send the admin key in X-Taxonomy-Mock-Admin-Key (pass the server's --admin-key)`,
    ],
  })
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
  expect(await runCli(args, withKey)).toEqual({
    code: 1,
    stdout: [],
    stderr: [
      `taxonomy-mock: the server serves a data file (sha256=${sha256}): pass that file with --data FILE`,
    ],
  })
  const other = fixturePath('minimal.json')
  const wrong = await runCli([...args, '--data', other], withKey)
  expect(wrong.code).toBe(1)
  expect(wrong.stderr).toEqual([
    expect.stringMatching(
      new RegExp(
        `^taxonomy-mock: --data file ".*minimal\\.json" \\(sha256=[0-9a-f]{64}\\) is not the file the server serves \\(sha256=${sha256}\\)$`,
      ),
    ),
  ])
  const saved = await runCli([...args, '--data', file], withKey)
  expect(saved.code).toBe(0)
  const base = await loadDataFile(file)
  expect(readFileSync(out, 'utf8')).toBe(
    toFixtureJson(patchTaxonomy(base, presetPatch(base, 'unicode-names'))),
  )
  // The admin key never reaches the output.
  for (const run of [refused, saved])
    expect([...run.stdout, ...run.stderr].join('\n')).not.toContain(ADMIN_KEY)
})

it('says a session without data has none, and saves the data it sees', async () => {
  const server = await startTestServer({ seed: 42, size: 'small' })
  const out = join(folder, 'plain.json')
  const { code, stderr } = await runCli([
    'export',
    ...['--from', server.url, '--session', 'never-patched', '--out', out],
  ])
  expect(code).toBe(0)
  expect(stderr[0]).toBe(
    "taxonomy-mock: session never-patched has no data of its own: it sees the server's data as it is",
  )
  expect(readFileSync(out, 'utf8')).toBe(toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })))
})

it('reads the session through an ingress that routes by the session header (docs/deployment.md)', async () => {
  // Two replicas without a store; only the one the header hashes to holds the session's data.
  const holder = await startTestServer({ seed: 42, size: 'small' })
  const other = await startTestServer({ seed: 42, size: 'small' })
  await putData(holder.url, 'routed', { preset: 'empty-children' })
  const ingress = createHttpServer((request, response) => {
    const target = request.headers['x-taxonomy-mock-session'] === 'routed' ? holder : other
    void fetch(`${target.url}${request.url}`, { headers: { accept: 'application/json' } }).then(
      async (answer) => response.writeHead(answer.status).end(await answer.text()),
    )
  })
  await new Promise<void>((resolve) => ingress.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(ingress.address() as { port: number }).port}`
    const out = join(folder, 'routed.json')
    const { code, stderr } = await runCli([
      'export',
      '--from',
      url,
      '--session',
      'routed',
      '--out',
      out,
    ])
    expect({ code, stderr }).toEqual({
      code: 0,
      stderr: [`taxonomy-mock: wrote 200 topics (session routed of ${url}) to ${out}`],
    })
    const base = createTaxonomy({ seed: 42, size: 'small' })
    expect(readFileSync(out, 'utf8')).toBe(
      toFixtureJson(patchTaxonomy(base, presetPatch(base, 'empty-children'))),
    )
  } finally {
    ingress.close()
  }
})

it('exits 1 with one line when the server cannot be reached', async () => {
  const port = await closedPort()
  const url = `http://127.0.0.1:${port}`
  expect(await runCli(['export', '--from', url, '--session', 's', '--out', 'x.json'])).toEqual({
    code: 1,
    stdout: [],
    stderr: [`taxonomy-mock: cannot reach ${url}/__admin/sessions/s/data: ECONNREFUSED`],
  })
})

it('names NODE_EXTRA_CA_CERTS when the server is a mock over HTTPS whose certificate Node does not trust', async () => {
  const server = createHttpsServer(createSelfSignedCertificate(['127.0.0.1']), (_, response) =>
    response.end('{}'),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`
  try {
    expect(await runCli(['export', '--from', url, '--session', 's', '--out', 'x.json'])).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: cannot reach ${url}/__admin/sessions/s/data: DEPTH_ZERO_SELF_SIGNED_CERT (Node does not trust its certificate: name the CA's PEM file in NODE_EXTRA_CA_CERTS)`,
      ],
    })
  } finally {
    server.close()
  }
})

it('exits 1 with one line when the server sends its answer too slowly to end within 10 s', async () => {
  // Headers at once, then a byte every 200 ms for ever: the bound covers the body too.
  const trickle = createHttpServer((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).write('{"patch":"')
    const timer = setInterval(() => response.write('a'), 200)
    response.on('close', () => clearInterval(timer))
  })
  await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(trickle.address() as { port: number }).port}`
    const out = join(folder, 'trickled.json')
    const run = spawnCli(['export', '--from', url, '--session', 's', '--out', out])
    // Only a hang is caught by time: the exit itself, code 1 with the bound's own line, shows the
    // 10 s bound ended the read (a killed run has no code and says nothing).
    const stop = setTimeout(() => run.child.kill('SIGKILL'), 30_000)
    const code = await run.exit
    clearTimeout(stop)
    expect({ code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: cannot read the answer of ${url}/__admin/sessions/s/data: no answer within 10 s`,
      ],
    })
    expect(existsSync(out)).toBe(false)
  } finally {
    trickle.closeAllConnections()
    trickle.close()
  }
})

it.each([
  [
    ['export', '--from', 'http://127.0.0.1:4477'],
    'taxonomy-mock: --from URL and --session ID go together: the session whose data a running mock serves',
  ],
  [
    ['export', '--session', 's'],
    'taxonomy-mock: --from URL and --session ID go together: the session whose data a running mock serves',
  ],
  [
    ['export', '--from', 'localhost:4477', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL (http://127.0.0.1:4477); received "localhost:4477" (string)',
  ],
  [
    ['export', '--from', 'ftp://127.0.0.1:4477/?token=s3cret-pw', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL (http://127.0.0.1:4477); received "ftp://127.0.0.1:4477/?token=[redacted]" (string)',
  ],
  // Dropped unsaid, with the path before it, they are refused as --target refuses them.
  [
    ['export', '--from', 'http://127.0.0.1:4477/x?y', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL, without a query or fragment; received "http://127.0.0.1:4477/x?y" (string)',
  ],
  [
    ['export', '--from', 'http://127.0.0.1:4477/#top', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL, without a query or fragment; received "http://127.0.0.1:4477/#top" (string)',
  ],
  [
    ['export', '--from', 'http://admin:s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must not carry credentials: pass the admin key as --admin-key; received "http://[redacted]@127.0.0.1:4477" (string)',
  ],
  [
    ['export', '--from', 'http://admin:123/s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must not carry credentials: pass the admin key as --admin-key; received "http://[redacted]@127.0.0.1:4477" (string)',
  ],
  [
    ['export', '--from', 'http://admin:hun/s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL (http://127.0.0.1:4477); received "http://[redacted]@127.0.0.1:4477" (string)',
  ],
  // Without `scheme://`, whether it parses or not: all before the last `@` may be the password.
  [
    ['export', '--from', 'admin:s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL (http://127.0.0.1:4477); received "[redacted]@127.0.0.1:4477" (string)',
  ],
  [
    ['export', '--from', '//admin:s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must be the mock\'s base URL (http://127.0.0.1:4477); received "[redacted]@127.0.0.1:4477" (string)',
  ],
  [
    ['export', '--from', 'http:admin:s3cret-pw@127.0.0.1:4477', '--session', 's'],
    'taxonomy-mock: --from must not carry credentials: pass the admin key as --admin-key; received "[redacted]@127.0.0.1:4477" (string)',
  ],
  [
    ['export', '--from', 'http://127.0.0.1:4477', '--session', 'a b'],
    'taxonomy-mock: --session must be 1-200 letters, digits or . _ ~ : @ - characters, not . or ..; received "a b" (string)',
  ],
  ...['.', '..'].map((id): [string[], string] => [
    ['export', '--from', 'http://127.0.0.1:4477', '--session', id],
    `taxonomy-mock: --session must be 1-200 letters, digits or . _ ~ : @ - characters, not . or ..; received "${id}" (string)`,
  ]),
  [
    ['export', '--from', 'http://127.0.0.1:4477', '--session', 's', '--seed', '1'],
    'taxonomy-mock: --from excludes --seed and --size: the server names its data',
  ],
  [
    ['export', '--admin-key', 'k'],
    'taxonomy-mock: --admin-key goes with --from URL: it is sent to that server',
  ],
  [['--from', 'http://127.0.0.1:4477'], 'taxonomy-mock: --from is an export option (see --help)'],
])('exits 2 with one line for %j', async (args, message) => {
  expect(await runCli(args)).toEqual({ code: 2, stdout: [], stderr: [message] })
})

/** A loopback port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

it('refuses to save data that is not what the server serves, and answers that are no session data or nest too deep', async () => {
  // A server of another generator version names the same seed and size with another digest.
  const answers: { status: number; body: unknown }[] = [
    {
      status: 200,
      body: {
        patch: null,
        dataset: {
          format: 'taxonomy-mock/v1',
          seed: 42,
          size: 'small',
          digest: '0000000000000000',
        },
      },
    },
    { status: 200, body: { hello: 'world' } },
    // A digest or a file's SHA-256 that is no hex digest (a message would quote 8 MB of it).
    {
      status: 200,
      body: { patch: null, dataset: { format: 'taxonomy-mock/v1', digest: 'x'.repeat(100_000) } },
    },
    {
      status: 200,
      body: {
        patch: null,
        dataset: { format: 'taxonomy-mock/v1.1', digest: '0', sha256: 'y'.repeat(100_000) },
      },
    },
    // A patch no taxonomy-mock takes, nested past what a recursive walk survives.
    {
      status: 200,
      body: `{"patch":{"topics":${'['.repeat(5_000)}${']'.repeat(5_000)}},"dataset":{"format":"taxonomy-mock/v1","seed":42,"size":"small","digest":"0"}}`,
    },
  ]
  const other = createHttpServer((_, response) => {
    const { status, body } = answers.shift()!
    response
      .writeHead(status, { 'content-type': 'application/json' })
      .end(typeof body === 'string' ? body : JSON.stringify(body))
  })
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`
    const args = ['export', '--from', url, '--session', 's', '--out', join(folder, 'never.json')]
    expect(await runCli(args)).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        'taxonomy-mock: the data rebuilt from seed 42, size small is not the data session "s" is served (digest 0000000000000000): is the server another version of taxonomy-mock?',
      ],
    })
    for (let answer = 0; answer < 3; answer++)
      expect(await runCli(args)).toEqual({
        code: 1,
        stdout: [],
        stderr: [
          `taxonomy-mock: ${url}/__admin/sessions/s/data did not answer a session's data: is --from a taxonomy-mock?`,
        ],
      })
    expect(await runCli(args)).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: ${url}/__admin/sessions/s/data answered a patch nested more than 64 levels deep (at topics${'[0]'.repeat(63)}), which no taxonomy-mock takes`,
      ],
    })
    // A refusal that repeats the admin key it was sent: the key stays out of the message.
    const adminKey = 'admin-key-to-keep-out'
    answers.push({ status: 403, body: { error: `admin key ${adminKey} is not accepted` } })
    expect(await runCli(args, { TAXONOMY_MOCK_ADMIN_KEY: adminKey })).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: ${url}/__admin/sessions/s/data answered 403: admin key [admin key] is not accepted (pass the server's --admin-key)`,
      ],
    })
    expect(existsSync(join(folder, 'never.json'))).toBe(false)
  } finally {
    other.close()
  }
})

it('exits 1 with one line naming the session when its patch does not apply to the data rebuilt', async () => {
  // The digest the server names is right for the seed, size and patch; the patch links to a
  // domain the data lacks (a server whose data changed since, or another version).
  const patch = { disciplines: [{ name: 'Lost', domain_ids: [MISSING_ID] }] }
  const base = createTaxonomy({ seed: 42, size: 'small' })
  const digest = servedDigest(
    describeDataset(base).digest,
    'name',
    digestText([toCanonicalJson(patch)!]),
  )
  const dataset = { format: 'taxonomy-mock/v1', seed: 42, size: 'small', digest }
  const other = createHttpServer((_, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ session: 's', patch, changes: null, dataset }))
  })
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`
    const out = join(folder, 'never-applied.json')
    expect(await runCli(['export', '--from', url, '--session', 's', '--out', out])).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: the patch ${url}/__admin/sessions/s/data answered for session "s" does not apply to the data rebuilt from seed 42, size small: disciplines[0].domain_ids[0]: no domain has id "${MISSING_ID}"`,
      ],
    })
    expect(existsSync(out)).toBe(false)
  } finally {
    other.close()
  }
})

const MISSING_ID = '00000000-0000-4000-8000-000000000000'

it("keeps a server's refusal on one line: its line breaks as spaces, its escapes as U+FFFD", async () => {
  const other = createHttpServer((_, response) => {
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end('{"error":"\\u001b[31mred\\nline2\\u009b2J"}')
  })
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`
    expect(await runCli(['export', '--from', url, '--session', 's'])).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `taxonomy-mock: ${url}/__admin/sessions/s/data answered 500: \ufffd[31mred line2\ufffd2J`,
      ],
    })
  } finally {
    other.close()
  }
})

it('refuses an admin key that serve refuses, by its length only, before anything is sent', async () => {
  const from = ['export', '--from', 'http://127.0.0.1:4477', '--session', 's']
  expect(await runCli([...from, '--admin-key', 'sekret\nkey'])).toEqual({
    code: 2,
    stdout: [],
    stderr: [
      'taxonomy-mock: --admin-key must be 1-256 visible ASCII characters with no spaces; received a string of 10 characters',
    ],
  })
  for (const key of ['sekret\nkey', '']) {
    expect(await runCli(from, { TAXONOMY_MOCK_ADMIN_KEY: key })).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `taxonomy-mock: TAXONOMY_MOCK_ADMIN_KEY must be 1-256 visible ASCII characters with no spaces; received a string of ${key.length} characters`,
      ],
    })
  }
})

it('refuses a seed or size no taxonomy-mock serves in one line naming the answer, before generating', async () => {
  const datasets = [
    { seed: 'abc', size: 'small' },
    { seed: 1, size: '0/0/0/0' },
    { seed: 1, size: 5 },
    // An object is no size a taxonomy-mock sends: never generated from, nor named `[object Object]`.
    { seed: 1, size: { topics: 3 } },
  ]
  const other = createHttpServer((_, response) => {
    const dataset = { format: 'taxonomy-mock/v1', digest: '0', ...datasets.shift() }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ patch: null, dataset }))
  })
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  try {
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`
    const answered = `taxonomy-mock: ${url}/__admin/sessions/s/data answered a dataset taxonomy-mock cannot rebuild: its`
    const lines = []
    for (let i = 0; i < 4; i++) {
      const { code, stdout, stderr } = await runCli(['export', '--from', url, '--session', 's'])
      expect({ code, stdout }).toEqual({ code: 1, stdout: [] })
      lines.push(...stderr)
    }
    expect(lines).toEqual([
      `${answered} seed must be a non-negative safe integer; received "abc" (string)`,
      `${answered} size "0/0/0/0" (domains) must be an integer from 1 to 1000; received 0 (number)`,
      `${answered} size must be 'small', 'medium', 'large' or counts such as "5/30/250/4500"; received 5 (number)`,
      `${answered} size must be 'small', 'medium', 'large' or counts such as "5/30/250/4500"; received an object`,
    ])
  } finally {
    other.close()
  }
})
