import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, it } from 'vitest'
import { checkedOrigin, createSessionClient, readCapped } from '../../src/http/session-client.js'

it('sends the session header on its admin calls, for an ingress that routes on it', async () => {
  const seen: IncomingHttpHeaders[] = []
  const server = createServer((request, response) => {
    seen.push(request.headers)
    response.writeHead(200, { 'content-type': 'application/json' }).end('[]')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as AddressInfo
    const client = createSessionClient({ url: `http://127.0.0.1:${port}`, session: 'run-7' })
    await client.journal()
    await client.use('unavailable')
    expect(seen.map((headers) => headers['x-taxonomy-mock-session'])).toEqual(['run-7', 'run-7'])
  } finally {
    server.close()
  }
})

it('sends an admin call again once when the connection closes before any answer, and fails on a second close', async () => {
  // Closes the first `closes` connections as soon as a request arrives on them, as a server ends a
  // kept-alive connection the client has just reused; answers on the others.
  const serve = async (closes: number) => {
    let requests = 0
    const server = createServer((request, response) => {
      if (++requests <= closes) request.socket.destroy()
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const client = createSessionClient({ url: `http://127.0.0.1:${port}`, session: 'run-7' })
    return { client, server, requests: () => requests }
  }
  const once = await serve(1)
  try {
    await once.client.use('unavailable')
    expect(once.requests()).toBe(2)
  } finally {
    once.server.close()
  }
  const twice = await serve(2)
  try {
    await expect(twice.client.use('unavailable')).rejects.toThrow(TypeError)
    expect(twice.requests()).toBe(2)
  } finally {
    twice.server.close()
  }
})

/** A server on loopback that handles every request with `handle`; closed after `run`. */
async function withServer(
  handle: Parameters<typeof createServer>[1],
  run: (url: string) => Promise<void>,
) {
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  } finally {
    server.closeAllConnections()
    server.close()
  }
}

it('keeps the admin key out of its errors when the server repeats it, raw or percent-encoded', async () => {
  const adminKey = 'admin/key-0123456789'
  await withServer(
    (request, response) => {
      const sent = String(request.headers['x-taxonomy-mock-admin-key'])
      response.writeHead(403, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: `admin key ${sent} (${encodeURIComponent(sent)}) is not accepted`,
        }),
      )
    },
    async (url) => {
      const error = await createSessionClient({ url, session: 's', adminKey })
        .journal()
        .then(
          () => undefined,
          (error: Error) => error.message,
        )
      expect(error).toBe(
        'Failed to GET the requests of session "s": HTTP 403: admin key [admin key] ([admin key]) is not accepted',
      )
    },
  )
})

it('follows no redirect: the admin key never reaches the origin a redirect names', async () => {
  const adminKey = 'admin-key-0123456789'
  const seen: (string | undefined)[] = []
  await withServer(
    (request, response) => {
      seen.push(request.headers['x-taxonomy-mock-admin-key'] as string | undefined)
      response.writeHead(200, { 'content-type': 'application/json' }).end('[]')
    },
    async (elsewhere) => {
      await withServer(
        (request, response) => {
          response.writeHead(307, { location: `${elsewhere}${request.url}` }).end()
        },
        async (url) => {
          await expect(
            createSessionClient({ url, session: 's', adminKey }).journal(),
          ).rejects.toThrow(
            'Failed to GET the requests of session "s": HTTP 307, a redirect, not followed: the admin key goes to the mock alone',
          )
        },
      )
    },
  )
  expect(seen).toEqual([])
})

it('fails an admin call whose whole answer does not come within its timeout: none, or part of a body', async () => {
  for (const part of ['', '{"a":'])
    await withServer(
      (_request, response) => {
        if (part === '') return
        response.writeHead(200, { 'content-type': 'application/json' })
        response.write(part)
      },
      async (url) => {
        await expect(createSessionClient({ url, session: 's' }, 200).journal()).rejects.toThrow(
          'Failed to GET the requests of session "s": no whole answer within 200 ms',
        )
      },
    )
})

it('stops reading an answer past its size bound', async () => {
  let pulled = 0
  const endless = new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20))
      },
    }),
  )
  await expect(readCapped(endless, 'GET the requests', 2 * 1024 * 1024)).rejects.toThrow(
    'Failed to GET the requests: answered over 2 MB',
  )
  expect(pulled).toBeLessThan(40)
})

it('refuses a URL with credentials, or none at all, without quoting it', () => {
  for (const url of ['http://user:pw-secret@127.0.0.1:1', 'nope', 'ftp://127.0.0.1'])
    expect(() => createSessionClient({ url, session: 's' })).toThrow(
      expect.objectContaining({
        option: 'url',
        message: '`url` must be an http or https URL without credentials',
      }),
    )
})

it('refuses a URL with a path, query or fragment, without quoting it: the admin API is at the origin', () => {
  for (const [url, parts] of [
    ['http://127.0.0.1:1/x?token=query-secret', 'a path and a query'],
    ['http://127.0.0.1:1/?token=query-secret', 'a query'],
    ['http://127.0.0.1:1/base/', 'a path'],
    ['http://127.0.0.1:1/x?a#b', 'a path, a query and a fragment'],
  ])
    expect(() => createSessionClient({ url: url!, session: 's' })).toThrow(
      expect.objectContaining({
        option: 'url',
        message: `\`url\` must be the server's origin, without a path, query or fragment, such as http://127.0.0.1:4477; received a URL with ${parts}`,
      }),
    )
  expect(checkedOrigin(new URL('http://127.0.0.1:4478/'))).toBe('http://127.0.0.1:4478')
})

it('refuses an answer that is not a journal, naming the server: a URL that answers but is not the mock', async () => {
  for (const body of ['{"items":[]}', 'null', '[1,2]', '[{"method":"GET"}]', '<!doctype html>'])
    await withServer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(body)
      },
      async (url) => {
        await expect(createSessionClient({ url, session: 's' }).journal()).rejects.toThrow(
          `Failed to GET the requests of session "s": the answer from ${url} is not a taxonomy-mock journal`,
        )
      },
    )
})

it('names the call and the server when no answer comes, and what to do when nothing listens', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  const url = `http://127.0.0.1:${port}/`
  await expect(createSessionClient({ url, session: 's' }).reset()).rejects.toThrow(
    expect.objectContaining({
      message: `Failed to PUT session "s" at http://127.0.0.1:${port}: ECONNREFUSED (no server listens there: start the mock before the tests, or correct its URL)`,
    }),
  )
})

it('names a bad URL as the caller found it (an environment variable, a fixture option)', () => {
  expect(() => checkedOrigin('127.0.0.1:4478', 'TAXONOMY_MOCK_URL')).toThrow(
    '`TAXONOMY_MOCK_URL` must be an http or https URL without credentials',
  )
  expect(checkedOrigin('http://127.0.0.1:4478//', 'taxonomyUrl')).toBe('http://127.0.0.1:4478')
})

it("refuses the session ids '.' and '..', which a URL path reads as its own steps, by the server's rule", () => {
  for (const session of ['.', '..', 'no spaces'])
    expect(() => createSessionClient({ url: 'http://127.0.0.1:1', session })).toThrow(
      `\`session\` must be 1-200 letters, digits or . _ ~ : @ - characters, not . or ..; received ${JSON.stringify(session)} (string)`,
    )
})

it('refuses a bad scenario at once, as the library does (a TypeError naming the field), sending nothing', async () => {
  let requests = 0
  await withServer(
    (_request, response) => {
      requests++
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no"}')
    },
    async (url) => {
      const client = createSessionClient({ url, session: 'run-7' })
      const bad = { kind: 'unavailable', times: -1 } as const
      await expect(client.use(bad)).rejects.toThrow(
        new TypeError('`scenario.times` must be a positive integer; received -1 (number)'),
      )
      await expect(client.use('nope' as never)).rejects.toThrow(TypeError)
      expect(requests).toBe(0)
    },
  )
})
