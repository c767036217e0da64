import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createRedactor } from '../../src/contract/redact.js'
import { verifyService } from '../../src/contract/verify.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { HANG_MS } from '../helpers/hang.js'
import { echoesOf } from '../helpers/hostile-target.js'
import { findKeyLeak } from '../helpers/key-leaks.js'
import { driftBodies, runInProcess, startTarget, type Drift } from '../helpers/targets.js'

const taxonomy = createTaxonomy({ seed: 42, size: 'small' })
const discipline = taxonomy.disciplines.find((d) => taxonomy.subDisciplinesOf(d).length >= 3)!
/** 60 characters: a slash for PHP's `\/`, a quote and a backslash for JSON, all of them for percent-encoding. */
const KEY = 'leak/Key"with\\quote-0123456789abcdefghijklmnopqrstuvwxyzABCD'

/**
 * `verify` or `record` in-process; every line and file it wrote, for the leak check. The target
 * answers from this same process: on a busy machine a stall of it (a long garbage collection) is
 * an answer's wait, so the per-answer bound is one only a hang reaches, not the default 10 s.
 */
async function runCommand(command: 'verify' | 'record', url: string, key: string) {
  const dir = mkdtempSync(join(tmpdir(), 'redaction-'))
  const files =
    command === 'verify'
      ? ['--report', join(dir, 'report.json'), '--junit', join(dir, 'junit.xml')]
      : ['--out', join(dir, 'recording.json')]
  const crawl = command === 'verify' ? ['--crawl', '6'] : ['--max-requests', '1000']
  const result = await runInProcess(
    [
      command,
      '--target',
      url,
      '--discipline',
      discipline.slug,
      ...crawl,
      '--rate',
      '500',
      '--timeout',
      String(HANG_MS),
      ...files,
    ],
    { TAXONOMY_API_KEY: key },
  )
  const written = files
    .filter((_, i) => i % 2 === 1)
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file, 'utf8'))
  return { ...result, written, outputs: [...result.stdout, ...result.stderr, ...written] }
}

/** The not-found probes answer with the key 100 characters in, where the 120-character excerpt cuts. */
function echoOnNotFound(echo: string): Drift {
  return (request, response) =>
    new URL(request.url).pathname.includes('taxonomy-mock-verify-') &&
    request.headers.get('authorization') === `Bearer ${KEY}`
      ? new Response(`{"error":"Resource not found","detail":"${'.'.repeat(60)}${echo}"}`, {
          status: 404,
          headers: { 'content-type': 'application/json' },
        })
      : response
}

const [raw, php, percent, base64] = echoesOf(KEY)

it.each([
  ['raw, cut by the excerpt', raw!],
  ["JSON-escaped PHP's way (\\/)", php!],
  ['percent-encoded', percent!],
  ['base64', base64!],
])(
  'keeps the key out of stdout, --report and --junit when the service echoes it %s',
  async (_, echo) => {
    const target = await startTarget(echoOnNotFound(echo), {
      seed: 42,
      size: 'small',
      apiKeys: [KEY],
    })
    const { code, outputs, written, stdout, stderr } = await runCommand('verify', target.url, KEY)
    // A rule fails (the echo), nothing else does: a run that stops before writing says why.
    expect({ code, stderr, files: written.length }).toEqual({ code: 1, stderr: [], files: 2 })
    expect(stdout.join('\n')).toContain('[API key]')
    for (const output of outputs) expect(findKeyLeak(output, KEY)).toBeUndefined()
  },
)

it.each(['utf16le', 'utf16be'] as const)(
  'keeps the key out of stdout, --report and --junit when the service echoes it in %s (NULs between its characters, read as bytes)',
  async (encoding) => {
    // Near the start: each character takes two in the text, and the excerpt keeps 120.
    const text = `{"error":"${KEY}"}`
    const bytes = Buffer.from(text, 'utf16le')
    if (encoding === 'utf16be') bytes.swap16()
    const target = await startTarget(
      (request, response) =>
        new URL(request.url).pathname.includes('taxonomy-mock-verify-')
          ? new Response(bytes, {
              status: 404,
              headers: { 'content-type': `application/json; charset=${encoding}` },
            })
          : response,
      { seed: 42, size: 'small', apiKeys: [KEY] },
    )
    const { code, outputs, written, stdout, stderr } = await runCommand('verify', target.url, KEY)
    expect({ code, stderr, files: written.length }).toEqual({ code: 1, stderr: [], files: 2 })
    expect(stdout.join('\n')).toContain('[API key]')
    // Whatever stands between its characters (a NUL, its escape, XML's replacement) taken out.
    for (const output of outputs)
      expect(findKeyLeak(output.replace(/\0|\\u0000|\ufffd/g, ''), KEY)).toBeUndefined()
  },
)

it('keeps the key out of every output when the service lists it as a slug, which a crawl would percent-encode into a path', async () => {
  const drift = driftBodies('disciplines', (b) => ({
    ...b,
    sub_disciplines: b.sub_disciplines.map((s: object, i: number) =>
      i === 0 ? { ...s, slug: KEY } : s,
    ),
  }))
  const target = await startTarget(drift, { seed: 42, size: 'small', apiKeys: [KEY] })
  const { code, outputs } = await runCommand('verify', target.url, KEY)
  expect(code).toBe(1)
  for (const output of outputs) expect(findKeyLeak(output, KEY)).toBeUndefined()
  for (const path of target.requests.map((r) => r.path))
    expect(findKeyLeak(path, KEY)).toBeUndefined()
})

it('record keeps the key off stderr when a listed slug is the key and its lookup fails', async () => {
  const key = 'recordkey-0123456789abcdefghij'
  const drift: Drift = async (request, response) => {
    if (new URL(request.url).pathname === `/api/v2/sub_disciplines/${key}`)
      return new Response('{"error":"boom"}', { status: 500 })
    return driftBodies('disciplines', (b) => ({
      ...b,
      sub_disciplines: b.sub_disciplines.map((s: object, i: number) =>
        i === 0 ? { ...s, slug: key } : s,
      ),
    }))(request, response)
  }
  const target = await startTarget(drift, { seed: 42, size: 'small', apiKeys: [key] })
  const { code, stderr, written, outputs } = await runCommand('record', target.url, key)
  expect(code).toBe(1)
  expect(stderr).toEqual([
    `taxonomy-mock: GET /api/v2/disciplines/${discipline.slug} answered with the API key in its body, which a recording must not hold; nothing written`,
  ])
  expect(written).toEqual([])
  for (const output of outputs) expect(findKeyLeak(output, key)).toBeUndefined()
})

it('record refuses at once, and writes nothing, when a recorded value holds a key with a quote and a backslash (JSON escapes them in the file)', async () => {
  const target = await startTarget(
    driftBodies('disciplines', (b) => ({ ...b, description: `${b.description} ${KEY}` })),
    { seed: 42, size: 'small', apiKeys: [KEY] },
  )
  const { code, stderr, written, outputs } = await runCommand('record', target.url, KEY)
  expect([code, stderr.length, written]).toEqual([1, 1, []])
  expect(target.requests).toHaveLength(1)
  expect(stderr[0]).toMatch(
    /^taxonomy-mock: GET \/api\/v2\/disciplines\/\S+ answered with the API key in its body, which a recording must not hold; nothing written$/,
  )
  for (const output of outputs) expect(findKeyLeak(output, KEY)).toBeUndefined()
})

it.each(['verify', 'record'] as const)(
  '%s refuses a key shorter than 8 characters, exit 2, naming only its length',
  async (command) => {
    const target = await startTarget(undefined, { seed: 42, size: 'small', apiKeys: ['e'] })
    const { code, stdout, stderr } = await runCommand(command, target.url, 'e')
    expect([code, stdout]).toEqual([2, []])
    expect(stderr).toEqual([
      'taxonomy-mock: the key in env TAXONOMY_API_KEY must have at least 8 characters; it has 1: a shorter key turns up by chance in what a service answers, so it could not be kept out of reports',
    ])
    expect(target.requests).toEqual([])
    await expect(
      verifyService({ target: target.url, apiKey: 'e', disciplines: ['x'] }),
    ).rejects.toThrow(/^`apiKey` must have at least 8 characters/)
  },
)

it('redacts the key in every encoding and mix, and leaves text around it whole', () => {
  const redactor = createRedactor(KEY)
  const json = JSON.stringify({ a: KEY })
  const forms = [
    ...echoesOf(KEY),
    json.slice(6, -2),
    encodeURIComponent(encodeURIComponent(KEY)),
    KEY.replace(/"/g, '&quot;'),
    KEY.replace(/\//g, '%2f').replace(/q/g, '\\u0071'),
    // HTML references as a browser reads them: an upper-case X, no semicolon, an upper-case name.
    `&#X${KEY.charCodeAt(0).toString(16).toUpperCase()};${KEY.slice(1)}`,
    `&#${KEY.charCodeAt(0)}${KEY.slice(1)}`,
    KEY.replace(/"/g, '&QUOT;'),
  ]
  for (const form of forms)
    expect(redactor.redact(`before ${form} after`), form).toBe('before [API key] after')
  expect(redactor.redact('record 1b4e28ba-2fa1-11d2-883f-0016d3cca427')).toBe(
    'record 1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  )
})

it('keeps the key out of the observations when a header echoes it percent-encoded', async () => {
  const drift: Drift = (_, response) => {
    if (response.status !== 401) return response
    const headers = new Headers(response.headers)
    headers.set('www-authenticate', `Bearer realm="${percent}"`)
    return new Response(response.body, { status: 401, headers })
  }
  const target = await startTarget(drift, { seed: 42, size: 'small', apiKeys: [KEY] })
  const { outputs, stdout } = await runCommand('verify', target.url, KEY)
  expect(stdout.join('\n')).toContain('Bearer realm="[API key]"')
  for (const output of outputs) expect(findKeyLeak(output, KEY)).toBeUndefined()
})

it('record shows the target and the --out path with the key redacted where they hold it', async () => {
  const key = 'pathkey-0123456789abcdefghij'
  const target = await startTarget(undefined, { seed: 42, size: 'small', apiKeys: [key] })
  const out = join(mkdtempSync(join(tmpdir(), 'redaction-')), key, 'recording.json')
  const { code, stdout, stderr } = await runInProcess(
    [
      'record',
      '--target',
      `${target.url}/${key}/..`,
      '--discipline',
      discipline.slug,
      '--rate',
      '500',
      '--out',
      out,
    ],
    { TAXONOMY_API_KEY: key },
  )
  expect([code, stderr]).toEqual([0, []])
  expect(stdout[0]).toContain(`from ${target.url}/[API key]/.. in `)
  expect(stdout[0]).toMatch(/ to \S+\/\[API key\]\/recording\.json$/)
  for (const line of stdout) expect(findKeyLeak(line, key)).toBeUndefined()
  expect(existsSync(out)).toBe(true)
})

it.each(['verify', 'record'] as const)(
  '%s redacts the key from the usage error of a --target that is no URL, and from a path it cannot write',
  async (command) => {
    const key = 'usagekey-0123456789abcdefghij'
    const target = await startTarget(undefined, { seed: 42, size: 'small', apiKeys: [key] })
    const file = command === 'verify' ? '--report' : '--out'
    const start = ['--discipline', discipline.slug, '--rate', '500']
    const noUrl = await runInProcess(
      [command, '--target', `${target.url} ${key}`, ...start, file, '/dev/null'],
      { TAXONOMY_API_KEY: key },
    )
    expect([noUrl.code, noUrl.stderr]).toEqual([
      2,
      [
        `taxonomy-mock: --target must be an http or https URL; received "${target.url} [API key]" (string)`,
      ],
    ])
    const unwritable = await runInProcess(
      [command, '--target', target.url, ...start, file, `/proc/${key}/x.json`],
      { TAXONOMY_API_KEY: key },
    )
    expect(unwritable.code).toBe(1)
    expect(unwritable.stderr).toEqual([
      `taxonomy-mock: cannot write ${file} file "/proc/[API key]/x.json": the folder "/proc" takes no new folder`,
    ])
    await expect(
      verifyService({ target: `${target.url} ${key}`, apiKey: key, disciplines: ['x'] }),
    ).rejects.toThrow(
      /^`target` must be an http or https URL; received "[^"]+ \[API key\]" \(string\)$/,
    )
  },
)
