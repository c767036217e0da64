// Host `::`, the container image's: every interface, IPv4 ones too, and every IPv4 interface where
// the kernel has no IPv6 (as Node's own listen() without a host).
import { connect, createServer, type Server } from 'node:net'
import { once } from 'node:events'
import { expect, it } from 'vitest'
import { listen } from '../../src/server/acceptor.js'
import { startServer } from '../../src/server/index.js'

/** A server whose listen on `refused` fails with `code`, as a kernel without IPv6 fails it. */
function refusing(code: string, refused = '::'): Server {
  const server = createServer((socket) => socket.end())
  const listenAsUsual = server.listen.bind(server)
  server.listen = ((options: { host?: string }, callback?: () => void) => {
    if (options.host !== refused) return listenAsUsual(options, callback)
    process.nextTick(() =>
      server.emit('error', Object.assign(new Error(`listen ${code} ${refused}`), { code })),
    )
    return server
  }) as Server['listen']
  return server
}

it('answers on IPv4 and IPv6 loopback for host ::', async () => {
  const server = await startServer({ port: 0, host: '::', size: 'small' })
  try {
    expect(server.url).toMatch(/^http:\/\/\[::\]:\d+$/)
    for (const loopback of ['127.0.0.1', '[::1]'])
      expect((await fetch(`http://${loopback}:${server.port}/__health`)).status).toBe(200)
  } finally {
    await server.close()
  }
})

it('listens on every IPv4 interface for host :: where the kernel has no IPv6', async () => {
  for (const code of ['EAFNOSUPPORT', 'EADDRNOTAVAIL']) {
    const server = refusing(code)
    try {
      const address = await listen(server, 0, '::', 511)
      expect(address, code).toMatchObject({ address: '0.0.0.0', family: 'IPv4' })
      await once(connect(address.port, '127.0.0.1'), 'close')
    } finally {
      server.close()
    }
  }
  // Only `::`, and only for those errors: anything else fails as it did.
  await expect(listen(refusing('EAFNOSUPPORT', '::1'), 0, '::1', 511)).rejects.toMatchObject({
    code: 'EAFNOSUPPORT',
  })
  await expect(listen(refusing('EADDRINUSE'), 0, '::', 511)).rejects.toMatchObject({
    code: 'EADDRINUSE',
  })
})
