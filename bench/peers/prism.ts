import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { NOT_FOUND, UNAUTHORIZED, type Peer, type Sample } from './peer.js'
import { PEER_VERSIONS } from './versions.js'

const KIT_OPENAPI = fileURLToPath(new URL('../../dist/openapi.json', import.meta.url))
const DISCIPLINE_PATH = '/api/v2/disciplines/{slug}'

interface Operation {
  parameters: { in: string }[]
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>
}

/**
 * The kit's OpenAPI document cut down to the discipline lookup, with the sample as the 200 example
 * and the §7 bodies as the 401 and 404 examples. Prism answers the first 2xx example; it checks
 * that a Bearer token is present and then answers the 401 example.
 */
function toPrismDocument(sample: Sample): unknown {
  const document = JSON.parse(readFileSync(KIT_OPENAPI, 'utf8')) as {
    paths: Record<string, { get: Operation }>
    components: { securitySchemes: Record<string, unknown> }
  }
  const operation = document.paths[DISCIPLINE_PATH]!.get
  // Only the slug: the Prefer and session headers are the kit's own mock controls.
  operation.parameters = operation.parameters.filter((parameter) => parameter.in === 'path')
  const setExample = (status: string, example: unknown) => {
    operation.responses[status]!.content!['application/json']!.example = example
  }
  setExample('200', JSON.parse(sample.body.toString('utf8')))
  setExample('401', JSON.parse(UNAUTHORIZED.body))
  setExample('404', JSON.parse(NOT_FOUND.body))
  document.paths = { [DISCIPLINE_PATH]: { get: operation } }
  delete document.components.securitySchemes.adminKey
  return document
}

/** Prism's mock server on that document, logging warnings only (per-request logs are `info`). */
export const prism: Peer = {
  name: `Prism ${PEER_VERSIONS['@stoplight/prism-cli']}`,
  packages: { '@stoplight/prism-cli': PEER_VERSIONS['@stoplight/prism-cli'] },
  configure(dir, sample) {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(toPrismDocument(sample)))
  },
  args: (dir, port) => [
    join(dir, 'node_modules/@stoplight/prism-cli/dist/index.js'),
    'mock',
    'openapi.json',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--verboseLevel',
    'warn',
  ],
}
