import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { KEY } from '../wrk.js'
import { NOT_FOUND, UNAUTHORIZED, type Peer, type Sample } from './peer.js'
import { PEER_VERSIONS } from './versions.js'

// The data file's format version that @mockoon/cli 9.9 writes, so it loads without a migration.
const LAST_MIGRATION = 33
const ROUTE_ID = '00000000-0000-4000-8000-000000000001'

interface Rule {
  target: 'header' | 'params'
  modifier: string
  value: string
  invert: boolean
  operator: 'equals'
}

const rule = (target: Rule['target'], modifier: string, value: string, invert = false): Rule => ({
  target,
  modifier,
  value,
  invert,
  operator: 'equals',
})

/** One of the route's responses; Mockoon answers the first whose rules all hold, else the default. */
function toResponse(index: number, statusCode: number, body: string, rules: Rule[]) {
  return {
    uuid: `00000000-0000-4000-8000-00000000001${index}`,
    body,
    latency: 0,
    statusCode,
    label: '',
    headers: [],
    bodyType: 'INLINE',
    filePath: '',
    databucketID: '',
    sendFileAsBody: false,
    rules,
    rulesOperator: 'AND',
    default: rules.length === 0,
    crudKey: 'id',
    callbacks: [],
    fallbackTo404: false,
    // Fixed bytes: nothing to template, so skip the template engine.
    disableTemplating: true,
  }
}

/** A Mockoon environment with one route: 401 without the key, the sample for its slug, else 404. */
function toMockoonEnvironment(sample: Sample): unknown {
  const responses = [
    toResponse(1, UNAUTHORIZED.status, UNAUTHORIZED.body, [
      rule('header', 'Authorization', `Bearer ${KEY}`, true),
    ]),
    toResponse(2, 200, sample.body.toString('utf8'), [rule('params', 'slug', sample.slug)]),
    toResponse(3, NOT_FOUND.status, NOT_FOUND.body, []),
  ]
  return {
    uuid: '00000000-0000-4000-8000-000000000000',
    lastMigration: LAST_MIGRATION,
    name: 'taxonomy',
    endpointPrefix: 'api/v2',
    latency: 0,
    port: 3000,
    hostname: '127.0.0.1',
    folders: [],
    routes: [
      {
        uuid: ROUTE_ID,
        type: 'http',
        documentation: '',
        method: 'get',
        endpoint: 'disciplines/:slug',
        responses,
        responseMode: null,
        streamingMode: null,
        streamingInterval: 0,
      },
    ],
    rootChildren: [{ type: 'route', uuid: ROUTE_ID }],
    proxyMode: false,
    proxyHost: '',
    proxyRemovePrefix: false,
    cors: true,
    proxyReqHeaders: [],
    proxyResHeaders: [],
    data: [],
    callbacks: [],
    tlsOptions: {
      enabled: false,
      type: 'CERT',
      pfxPath: '',
      certPath: '',
      keyPath: '',
      caPath: '',
      passphrase: '',
    },
    headers: [{ key: 'Content-Type', value: 'application/json' }],
  }
}

/** Mockoon's CLI on that environment; `-X` keeps its request log off the disk (it still prints it). */
export const mockoon: Peer = {
  name: `Mockoon CLI ${PEER_VERSIONS['@mockoon/cli']}`,
  packages: { '@mockoon/cli': PEER_VERSIONS['@mockoon/cli'] },
  configure(dir, sample) {
    writeFileSync(join(dir, 'environment.json'), JSON.stringify(toMockoonEnvironment(sample)))
  },
  args: (dir, port) => [
    join(dir, 'node_modules/@mockoon/cli/bin/run.js'),
    'start',
    '--data',
    'environment.json',
    '--port',
    String(port),
    '--hostname',
    '127.0.0.1',
    '-X',
  ],
}
