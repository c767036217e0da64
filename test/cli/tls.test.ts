// `--tls`, `--tls-cert` and `--tls-key`: HTTPS from the CLI, the certificate written for clients
// to trust, the same answers as over HTTP (curl, Node), and one-line errors for bad input.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { formatTlsLines } from '../../src/cli/banner.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { createSelfSignedCertificate } from '../../src/server/self-signed.js'
import { runCli, spawnCli } from '../helpers/cli.js'
import { freePort } from '../helpers/local-load.js'

const URL_LINE = /^taxonomy-mock listening on (https?:\/\/127\.0\.0\.1:(\d+)) /
const slug = createTaxonomy({ size: 'small' }).disciplines[0]!.slug
const hasCurl = spawnSync('curl', ['--version']).status === 0
const folder = mkdtempSync(join(tmpdir(), 'taxonomy-mock-tls-'))
const run = promisify(execFile)

async function startCli(args: string[], env: Record<string, string> = {}) {
  const cli = spawnCli(['--port', '0', '--size', 'small', ...args], env)
  const line = await cli.waitFor(URL_LINE)
  const [, url, port] = URL_LINE.exec(line)!
  return { cli, url: url!, port: Number(port) }
}

/** curl's view of an answer, headers and body, without the Date header (the only part that depends on when). */
async function curl(url: string, ...options: string[]): Promise<string> {
  const { stdout } = await run('curl', [
    '-sS',
    '-i',
    ...options,
    '-H',
    'Authorization: Bearer taxonomy-mock-key',
    url,
  ])
  return stdout.replace(/^Date: .*\r\n/gim, '')
}

it('serves HTTPS with --tls, prints the URL, the certificate lines and a curl that trusts it, and writes the certificate to the temp folder', async () => {
  const { cli, url, port } = await startCli(['--tls'])
  expect(url).toMatch(/^https:\/\//)
  const file = join(tmpdir(), `taxonomy-mock-${port}-cert.pem`)
  const certificate = new X509Certificate(readFileSync(file))
  await cli.waitFor(/sub_disciplines:/)
  const spki = cli.stdout.find((line) => line.startsWith('  spki sha256:'))!
  expect(cli.stdout.slice(1, 5)).toEqual([
    '  certificate:     self-signed, for localhost, 127.0.0.1, ::1, 10.0.2.2',
    `  trust:           ${file} (curl --cacert FILE, NODE_EXTRA_CA_CERTS=FILE)`,
    `  sha256:          ${certificate.fingerprint256}`,
    spki,
  ])
  expect(spki).toMatch(
    /^ {2}spki sha256: {5}[A-Za-z0-9+/]{43}= \(chromium --ignore-certificate-errors-spki-list\)$/,
  )
  expect(cli.stdout.find((line) => line.startsWith('  try:'))).toContain(
    `curl --cacert ${file} -H 'Authorization: Bearer taxonomy-mock-key' ${url}/api/v2/`,
  )
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  expect(cli.stderr).toEqual([])
  rmSync(file)
})

it.skipIf(!hasCurl)(
  'quotes the certificate’s path in the curl to paste, so a space or a quote in it works in a shell',
  async () => {
    const file = join(folder, "it's a cert.pem")
    const { cli } = await startCli(['--tls', '--tls-ca-out', file])
    const line = await cli.waitFor(/^ {2}try:/)
    const command = line.replace(/^ {2}try: +/, '')
    expect(command).toContain(`curl --cacert '${file.replaceAll("'", `'\\''`)}' -H `)
    const { stdout } = await run('sh', ['-c', `${command} -s -o /dev/null -w '%{http_code}'`])
    expect(stdout).toBe('200')
    cli.child.kill('SIGTERM')
    expect(await cli.exit).toBe(0)
  },
)

it('replaces a link planted at the temp folder’s certificate path rather than writing through it', async () => {
  const victim = join(folder, 'victim.txt')
  writeFileSync(victim, 'keep me')
  // The link is named by the port, so the port is chosen first: free a moment ago, but another
  // process may take it before the CLI listens. Then the CLI says so and exits, and the test plants
  // the link for another port (as startUnseenServer in test/helpers/local-load.ts starts again).
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const file = join(tmpdir(), `taxonomy-mock-${port}-cert.pem`)
    rmSync(file, { force: true })
    symlinkSync(victim, file)
    const cli = spawnCli(['--port', String(port), '--size', 'small', '--quiet', '--tls'])
    const listening = await Promise.race([
      cli.waitFor(URL_LINE).then(() => true),
      cli.exit.then(() => false),
    ])
    if (!listening) {
      // The link goes; a file there now is the other process's.
      if (lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(file)
      expect(cli.stderr.join('\n')).toMatch(/is already in use/)
      if (attempt === 5)
        throw new Error('five ports taken by other processes before the CLI listened')
      continue
    }
    try {
      expect(lstatSync(file).isFile()).toBe(true)
      expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/)
      expect(readFileSync(victim, 'utf8')).toBe('keep me')
      cli.child.kill('SIGTERM')
      expect(await cli.exit).toBe(0)
      return
    } finally {
      rmSync(file, { force: true })
    }
  }
})

it.skipIf(!hasCurl)(
  'answers curl trusting the written certificate with the same bytes as over HTTP',
  async () => {
    const caFile = join(folder, 'curl-ca.pem')
    const [https, http] = await Promise.all([
      startCli(['--tls', '--tls-ca-out', caFile, '--quiet']),
      startCli(['--quiet']),
    ])
    for (const path of [`/api/v2/disciplines/${slug}`, '/api/v2/disciplines/nope', '/__health']) {
      const [overHttps, overHttp] = await Promise.all([
        curl(`${https.url}${path}`, '--cacert', caFile),
        curl(`${http.url}${path}`),
      ])
      expect(overHttp).toMatch(/^HTTP\/1\.1 \d{3} /)
      expect(overHttps).toBe(overHttp)
    }
    // localhost is in the certificate too; curl checks the name against it.
    expect(await curl(`https://localhost:${https.port}/__health`, '--cacert', caFile)).toMatch(
      /^HTTP\/1\.1 200 /,
    )
  },
)

it('answers Node’s fetch in a process that trusts the written certificate through NODE_EXTRA_CA_CERTS', async () => {
  const caFile = join(folder, 'node-ca.pem')
  const { url } = await startCli(['--tls', '--tls-ca-out', caFile, '--quiet'])
  const script = `fetch(process.argv[1], { headers: { authorization: 'Bearer taxonomy-mock-key' } }).then(async (r) => console.log(r.status, (await r.json()).slug))`
  const { stdout } = await run(
    process.execPath,
    ['-e', script, `${url}/api/v2/disciplines/${slug}`],
    { env: { NODE_EXTRA_CA_CERTS: caFile } },
  )
  expect(stdout.trim()).toBe(`200 ${slug}`)
})

it('serves HTTPS with --tls-cert and --tls-key, printing the certificate lines with --quiet too', async () => {
  const pair = createSelfSignedCertificate(['localhost', '127.0.0.1'])
  writeFileSync(join(folder, 'given-cert.pem'), pair.cert)
  writeFileSync(join(folder, 'given-key.pem'), pair.key)
  const { cli, url } = await startCli([
    '--tls-cert',
    join(folder, 'given-cert.pem'),
    '--tls-key',
    join(folder, 'given-key.pem'),
    '--quiet',
  ])
  expect(url).toMatch(/^https:\/\//)
  await cli.waitFor(/spki sha256:/)
  expect(cli.stdout.slice(1, 3)).toEqual([
    '  certificate:     from --tls-cert, for localhost, 127.0.0.1',
    `  sha256:          ${new X509Certificate(pair.cert).fingerprint256}`,
  ])
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  expect(cli.stdout).toHaveLength(4)
})

it('stops at once on SIGTERM while a client stalls in its TLS handshake', async () => {
  const { cli, port } = await startCli([
    '--tls',
    '--tls-ca-out',
    join(folder, 'stall-ca.pem'),
    '--quiet',
  ])
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  const closed = new Promise((resolve) => socket.on('close', resolve))
  await new Promise((resolve) => socket.on('connect', resolve))
  // The stop ends the stalled connection. That it does so at once, not at the handshake timeout,
  // test/server/tls.test.ts shows under limits whose timeouts never run out.
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  await closed
})

const pair = createSelfSignedCertificate(['localhost'])
const otherPair = createSelfSignedCertificate(['localhost'])
const files = {
  cert: join(folder, 'cert.pem'),
  key: join(folder, 'key.pem'),
  otherKey: join(folder, 'other-key.pem'),
  notPem: join(folder, 'not-pem.txt'),
  directory: join(folder, 'a-folder'),
  missing: join(folder, 'missing.pem'),
  der: join(folder, 'cert.der'),
  loop: join(folder, 'loop.pem'),
  socket: join(folder, 'key.sock'),
}
writeFileSync(files.cert, pair.cert)
writeFileSync(files.key, pair.key)
writeFileSync(files.otherKey, otherPair.key)
writeFileSync(files.notPem, 'hello\n')
writeFileSync(files.der, new X509Certificate(pair.cert).raw)
mkdirSync(files.directory)
symlinkSync(files.loop, files.loop)
// Listening, so the path is a socket, which open() refuses (ENXIO); unref'd, it keeps no test alive.
await new Promise<void>((listening) =>
  createServer()
    .listen(files.socket, () => listening())
    .unref(),
)

it.each([
  [
    ['--tls', '--tls-cert', files.cert],
    '--tls makes a certificate at start; it excludes --tls-cert (pass one or the other)',
  ],
  [
    ['--tls', '--tls-key', files.key],
    '--tls makes a certificate at start; it excludes --tls-key (pass one or the other)',
  ],
  [
    ['--tls-cert', files.cert],
    '--tls-cert and --tls-key go together: the certificate and its private key, PEM files',
  ],
  [
    ['--tls-ca-out', files.missing],
    '--tls-ca-out goes with --tls: it writes the certificate --tls makes',
  ],
  [
    ['--tls-cert', files.missing, '--tls-key', files.key],
    `cannot read --tls-cert file ${JSON.stringify(files.missing)}: no such file`,
  ],
  // The cause in words, as the written files' lines say it, not an errno code (ELOOP, ENOTDIR, ENXIO).
  [
    ['--tls-cert', files.loop, '--tls-key', files.key],
    `cannot read --tls-cert file ${JSON.stringify(files.loop)}: its symbolic links make a loop`,
  ],
  [
    ['--tls-cert', files.cert, '--tls-key', join(files.key, 'key.pem')],
    `cannot read --tls-key file ${JSON.stringify(join(files.key, 'key.pem'))}: a part of the path is a file, not a folder`,
  ],
  [
    ['--tls-cert', files.cert, '--tls-key', files.socket],
    `--tls-key file ${JSON.stringify(files.socket)} is a socket, not a file`,
  ],
  [
    ['--tls-cert', files.cert, '--tls-key', files.directory],
    `--tls-key file ${JSON.stringify(files.directory)} is a directory, not a PEM file`,
  ],
  // A device has no size to check first: the PEM bound holds as it is read.
  [
    ['--tls-cert', '/dev/zero', '--tls-key', files.key],
    '--tls-cert file "/dev/zero" is over the 1 MB limit: not a PEM certificate or key',
  ],
  [
    ['--tls-cert', files.notPem, '--tls-key', files.key],
    `--tls-cert file ${JSON.stringify(files.notPem)} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
  ],
  // DER, not PEM: "not UTF-8: byte 0x82 at offset 1" named a symptom, not the cause.
  [
    ['--tls-cert', files.der, '--tls-key', files.key],
    `--tls-cert file ${JSON.stringify(files.der)} is binary, not PEM text (DER? \`openssl x509 -inform der\` or \`openssl pkey -inform der\` writes it as PEM)`,
  ],
  [
    ['--tls-cert', files.cert, '--tls-key', files.cert],
    `--tls-key file ${JSON.stringify(files.cert)} holds no PEM private key (-----BEGIN PRIVATE KEY-----)`,
  ],
  [
    ['--tls-cert', files.cert, '--tls-key', files.otherKey],
    `--tls-key file ${JSON.stringify(files.otherKey)} is not the key of the certificate (their public keys differ)`,
  ],
  [
    ['export', '--tls'],
    '--tls is a serve option; export takes --seed, --size, --data, --from, --session, --admin-key, --out, --types and --manifest',
  ],
])('exits 2 with one line for %j', async (args, message) => {
  const result = await runCli(args[0] === 'export' ? args : ['--port', '0', ...args])
  expect(result.code).toBe(2)
  expect(result.stderr).toEqual([`taxonomy-mock: ${message}`])
  expect(result.stdout).toEqual([])
})

it('exits 1 with one line when the certificate cannot be written, before the data loads', async () => {
  // Its folder cannot be made: a file has that name.
  const notFolder = join(folder, 'not-a-folder')
  writeFileSync(notFolder, '')
  const file = join(notFolder, 'ca.pem')
  // A --data FIFO whose writer never finishes: start-up would wait on it for good.
  const fifo = join(folder, 'held-data.fifo')
  execFileSync('mkfifo', [fifo])
  const writer = openSync(fifo, 'r+')
  try {
    const result = await runCli(['--port', '0', '--tls', '--tls-ca-out', file, '--data', fifo])
    expect(result.code).toBe(1)
    expect(result.stderr).toEqual([
      `taxonomy-mock: cannot write --tls-ca-out file ${JSON.stringify(file)}: ${JSON.stringify(notFolder)} is a file, not a folder`,
    ])
    expect(result.stdout).toEqual([])
    expect(existsSync(file)).toBe(false)
  } finally {
    closeSync(writer)
  }
})

it.each([[[]], [['--workers', '2']]])(
  'a second identical serve that cannot start (%j) leaves the running one’s --tls-ca-out as it is, and no partial file',
  async (workers) => {
    const caFolder = mkdtempSync(join(folder, 'shared-ca-'))
    const caFile = join(caFolder, 'shared.pem')
    const flags = ['--quiet', '--tls', '--tls-ca-out', caFile, ...workers]
    const { cli, port } = await startCli(['--tls', '--tls-ca-out', caFile, '--quiet'])
    const served = readFileSync(caFile, 'utf8')
    const invalid = join(caFolder, 'invalid.json')
    writeFileSync(invalid, '{"not": "a taxonomy"}')
    for (const [args, code, said] of [
      [['--port', String(port), ...flags], 1, /port \d+ is already in use/],
      [['--port', '0', '--data', invalid, ...flags], 2, /--data file/],
    ] as const) {
      const result = await runCli([...args])
      expect(result.code).toBe(code)
      expect(result.stderr.join('\n')).toMatch(said)
      expect(readFileSync(caFile, 'utf8')).toBe(served)
      expect(readdirSync(caFolder).sort()).toEqual(['invalid.json', 'shared.pem'])
    }
    if (hasCurl)
      expect(await curl(`https://127.0.0.1:${port}/__health`, '--cacert', caFile)).toMatch(
        /^HTTP\/1\.1 200 /,
      )
    cli.child.kill('SIGTERM')
    expect(await cli.exit).toBe(0)
  },
)

/** Prints, at exit, which of Node's TLS and crypto modules the process loaded (modules every Node version has; Node 22 loads `os` itself, Node 24 has no `_tls_wrap`). */
const PRELOAD = join(folder, 'report-tls-modules.cjs')
writeFileSync(
  PRELOAD,
  `process.on('exit', () => require('node:fs').writeSync(2, 'loaded: ' + process.moduleLoadList.filter((m) => /^NativeModule (tls|https|crypto)$/.test(m)).map((m) => m.slice(13)).sort().join(' ') + '\\n'))\n`,
)

it.each([
  [[], 'loaded: '],
  [['--tls', '--tls-ca-out', join(folder, 'modules-ca.pem')], 'loaded: crypto https tls'],
])('loads node:tls, node:https and node:crypto only for HTTPS: %j', async (args, report) => {
  const { cli } = await startCli(['--quiet', ...args], { NODE_OPTIONS: `--require ${PRELOAD}` })
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  expect(cli.stderr).toEqual([report])
})

it('serves a --tls-cert out of its dates as given, and says so on stderr before the URL line', async () => {
  // A client's handling of an expired certificate is a thing to test: it is served, not refused.
  const yearsAgo = createSelfSignedCertificate(
    ['localhost'],
    new Date(Date.now() - 3 * 365 * 86_400_000),
  )
  const nextYear = createSelfSignedCertificate(
    ['localhost'],
    new Date(Date.now() + 365 * 86_400_000),
  )
  for (const [pair, said] of [
    [yearsAgo, / expired on .*: clients that check it refuse it \(served as given\)$/],
    [nextYear, / is valid only from .*: clients that check it refuse it \(served as given\)$/],
  ] as const) {
    const cert = join(mkdtempSync(join(folder, 'dates-')), 'cert.pem')
    const key = join(dirname(cert), 'key.pem')
    writeFileSync(cert, pair.cert)
    writeFileSync(key, pair.key)
    const { cli } = await startCli(['--quiet', '--tls-cert', cert, '--tls-key', key])
    cli.child.kill('SIGTERM')
    // Once it has exited, every line of both streams is in.
    expect(await cli.exit).toBe(0)
    expect(cli.stderr).toHaveLength(1)
    expect(cli.stderr[0]).toMatch(`taxonomy-mock: --tls-cert file ${JSON.stringify(cert)}`)
    expect(cli.stderr[0]).toMatch(said)
  }
  // A certificate in its dates is served without a word.
  const { cli } = await startCli(['--quiet', '--tls-cert', files.cert, '--tls-key', files.key])
  cli.child.kill('SIGTERM')
  expect(await cli.exit).toBe(0)
  expect(cli.stderr).toEqual([])
})

it('says a certificate without a subjectAltName is valid for no host, not "for " and nothing', () => {
  const [line] = formatTlsLines(
    { pem: '', fingerprint256: 'AA', spkiSha256: 'BB', names: [] },
    undefined,
  )
  expect(line).toMatch(
    /^ {2}certificate: {5}from --tls-cert, for no name: it has no subjectAltName/,
  )
})
