// fastify with hand-written routes for the discipline lookup: the precomputed bytes, the spec's 401
// and 404. Usage: node fastify-server.mjs PORT (files beside it: discipline.json, slug.txt).
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = readFileSync(new URL('./discipline.json', import.meta.url))
const slug = readFileSync(new URL('./slug.txt', import.meta.url), 'utf8')
// The kit's documented default key.
const AUTHORIZATION = 'Bearer taxonomy-mock-key'
const UNAUTHORIZED = '{"error":"Invalid or missing API key"}'
const NOT_FOUND = '{"error":"Resource not found"}'

const app = Fastify()
app.get('/api/v2/disciplines/:slug', (request, reply) => {
  reply.type('application/json')
  if (request.headers.authorization !== AUTHORIZATION) {
    return reply.code(401).header('www-authenticate', 'Bearer').send(UNAUTHORIZED)
  }
  if (request.params.slug !== slug) return reply.code(404).send(NOT_FOUND)
  return reply.send(body)
})
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' })
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
