// The reference for server throughput: a bare node:http server (node:https with a certificate and
// key given as files) that sends one precomputed body with the same headers our server sends for
// the benchmarked request, whatever it is asked.
import cluster from 'node:cluster'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'

const [bodyBase64 = '', headersJson = '{}', certFile, keyFile] = process.argv.slice(2)
// `REFERENCE_WORKERS=N`: N such processes on one port by node:cluster, as `--workers N` serves.
const workers = Number(process.env.REFERENCE_WORKERS ?? 1)
if (workers > 1 && cluster.isPrimary) {
  let listening = 0
  for (let i = 0; i < workers; i++) cluster.fork()
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) console.log(`listening on http://127.0.0.1:${address.port}`)
  })
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM')
    process.exit(0)
  })
} else {
  serve()
}

function serve() {
  const body = Buffer.from(bodyBase64, 'base64')
  const headers = JSON.parse(headersJson) as Record<string, string>
  const answer = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, headers)
    response.end(body)
  }
  // Offered the same TLS as our server: the same certificate and key, HTTP/1.1 only.
  const server =
    certFile && keyFile
      ? createHttpsServer(
          {
            keepAlive: true,
            cert: readFileSync(certFile),
            key: readFileSync(keyFile),
            ALPNProtocols: ['http/1.1'],
          },
          answer,
        )
      : createServer({ keepAlive: true }, answer)
  const scheme = certFile ? 'https' : 'http'
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number }
    if (cluster.isPrimary) console.log(`listening on ${scheme}://127.0.0.1:${address.port}`)
  })
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
}
