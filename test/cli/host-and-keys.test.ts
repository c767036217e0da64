import { expect, it } from 'vitest'
import { startServer } from '../../src/server/index.js'
import { runCli, spawnCli } from '../helpers/cli.js'
import { serviceLinkVariables } from '../helpers/service-links.js'

it('exits 2 when TAXONOMY_MOCK_API_KEYS is set but holds no key, rather than accept the public default key', async () => {
  for (const value of ['', ' , ']) {
    const { code, stdout, stderr } = await runCli(['--port', '0'], {
      TAXONOMY_MOCK_API_KEYS: value,
    })
    expect(code).toBe(2)
    expect(stdout).toEqual([])
    expect(stderr.join('\n')).toContain('TAXONOMY_MOCK_API_KEYS is set but holds no key')
  }
})

it('exits 2 beside a Kubernetes Service named taxonomy-mock whose service link set TAXONOMY_MOCK_PORT, saying so', async () => {
  // What the kubelet sets for deploy/kubernetes's Service in a pod that keeps service links.
  const links = serviceLinkVariables(
    { name: 'taxonomy-mock', ports: [{ name: 'http', port: 80 }] },
    '10.96.0.12',
  )
  expect(links.TAXONOMY_MOCK_PORT).toBe('tcp://10.96.0.12:80')
  const { code, stdout, stderr } = await runCli([], links)
  expect(code).toBe(2)
  expect(stdout).toEqual([])
  expect(stderr).toEqual([
    'taxonomy-mock: TAXONOMY_MOCK_PORT must be an integer from 0 to 65535; received "tcp://10.96.0.12:80" (string): Kubernetes sets it so for a Service named taxonomy-mock (a service link); give the pod\'s spec enableServiceLinks: false',
  ])
  // --port wins over the variable, as everywhere.
  const run = spawnCli(['--port', '0', '--quiet'], links)
  expect(await run.waitFor(/listening on /)).toMatch(
    /^taxonomy-mock listening on http:\/\/127\.0\.0\.1:\d+ /,
  )
})

it('listens on a bracketed IPv6 literal given to --host, and prints the URL with brackets', async () => {
  const run = spawnCli(['--host', '[::1]', '--port', '0', '--quiet'])
  const line = await run.waitFor(/listening on /)
  const url = /listening on (http:\/\/\[::1\]:\d+) /.exec(line)?.[1]
  expect(url, line).toBeDefined()
  expect((await fetch(`${url}/__health`)).status).toBe(200)
})

it('binds ::1 for host [::1] in the library too', async () => {
  const server = await startServer({ port: 0, host: '[::1]' })
  try {
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/)
  } finally {
    await server.close()
  }
})

it('refuses brackets that hold no IPv6 address: `[]` would be the empty host, every interface', async () => {
  for (const host of ['[]', '[localhost]', '[127.0.0.1]']) {
    await expect(startServer({ port: 0, host })).rejects.toThrow(
      `\`host\` must be a host name or IP address (in brackets, an IPv6 address); received ${JSON.stringify(host)} (string)`,
    )
    const { code, stderr } = await runCli(['--port', '0', '--host', host])
    expect(code).toBe(2)
    expect(stderr).toEqual([
      `taxonomy-mock: --host must be a host name or IP address (in brackets, an IPv6 address); received ${JSON.stringify(host)} (string)`,
    ])
  }
})

it('refuses a host with a scheme or a port as a usage error, naming host (getaddrinfo said ENOTFOUND, naming nothing)', async () => {
  for (const host of ['127.0.0.1:80', 'localhost:4477', 'http://127.0.0.1', '127.0.0.1/x']) {
    await expect(startServer({ port: 0, host })).rejects.toThrow(
      expect.objectContaining({
        option: 'host',
        message: `\`host\` must be a host name or IP address, without a scheme or port (the port is \`port\`); received ${JSON.stringify(host)} (string)`,
      }),
    )
  }
  const { code, stderr } = await runCli(['--port', '0', '--host', '127.0.0.1:80'])
  expect(code).toBe(2)
  expect(stderr).toEqual([
    'taxonomy-mock: --host must be a host name or IP address, without a scheme or port (the port is --port); received "127.0.0.1:80" (string)',
  ])
  // An IPv6 address holds colons, with or without brackets.
  const server = await startServer({ port: 0, host: '::1' })
  await server.close()
})

it('refuses a host with a bidirectional control (U+202E, U+200F, U+2066) as a usage error, from the flag and the variable, quoting it escaped', async () => {
  // No host name holds one; passed on, getaddrinfo answered EINVAL: exit 1, the name shown as U+FFFD.
  for (const [host, quoted] of [
    ['a\u202eb', '"a\\u202eb"'],
    ['local\u200fhost', '"local\\u200fhost"'],
    ['\u2066127.0.0.1', '"\\u2066127.0.0.1"'],
  ] as const) {
    await expect(startServer({ port: 0, host })).rejects.toThrow(
      `\`host\` must be a host name or IP address; received ${quoted} (string)`,
    )
    expect(await runCli(['--port', '0', '--host', host])).toEqual({
      code: 2,
      stdout: [],
      stderr: [
        `taxonomy-mock: --host must be a host name or IP address; received ${quoted} (string)`,
      ],
    })
    const { code, stderr } = await runCli(['--port', '0'], { TAXONOMY_MOCK_HOST: host })
    expect(code).toBe(2)
    expect(stderr).toEqual([
      `taxonomy-mock: TAXONOMY_MOCK_HOST must be a host name or IP address; received ${quoted} (string)`,
    ])
  }
})

it('refuses a host with a control character (C0, DEL, C1) as a usage error, quoting it escaped', async () => {
  for (const [host, quoted] of [
    ['\u001b[31mred', '"\\u001b[31mred"'],
    ['local\u007fhost', '"local\\u007fhost"'],
    ['a\u009bb', '"a\\u009bb"'],
  ] as const) {
    await expect(startServer({ port: 0, host })).rejects.toThrow(
      `\`host\` must be a host name or IP address; received ${quoted} (string)`,
    )
    const { code, stderr } = await runCli(['--port', '0'], { TAXONOMY_MOCK_HOST: host })
    expect(code).toBe(2)
    expect(stderr).toEqual([
      `taxonomy-mock: TAXONOMY_MOCK_HOST must be a host name or IP address; received ${quoted} (string)`,
    ])
  }
})
