// The reference for server throughput: a bare node:http server that sends one precomputed body
// with the same headers our server sends for the benchmarked request, whatever it is asked.
import { createServer } from 'node:http'

const [bodyBase64 = '', headersJson = '{}'] = process.argv.slice(2)
const body = Buffer.from(bodyBase64, 'base64')
const headers = JSON.parse(headersJson) as Record<string, string>
const server = createServer({ keepAlive: true }, (_request, response) => {
  response.writeHead(200, headers)
  response.end(body)
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number }
  console.log(`listening on http://127.0.0.1:${address.port}`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
