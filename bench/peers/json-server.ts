import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { copyLauncher } from './launchers.js'
import type { Peer } from './peer.js'
import { PEER_VERSIONS } from './versions.js'

/**
 * json-server 0.17 with a one-record `disciplines` collection keyed by `slug` (`--id slug`), a
 * routes file mapping the spec's path onto it, and a middleware for the key.
 */
export const jsonServer: Peer = {
  name: `json-server ${PEER_VERSIONS['json-server']}`,
  packages: { 'json-server': PEER_VERSIONS['json-server'] },
  configure(dir, sample) {
    writeFileSync(join(dir, 'db.json'), `{"disciplines":[${sample.body.toString('utf8')}]}`)
    writeFileSync(
      join(dir, 'routes.json'),
      JSON.stringify({ '/api/v2/disciplines/:slug': '/disciplines/:slug' }),
    )
    copyLauncher('json-server-auth.cjs', dir)
  },
  args: (dir, port) => [
    join(dir, 'node_modules/json-server/lib/cli/bin.js'),
    'db.json',
    '--routes',
    'routes.json',
    '--id',
    'slug',
    '--middlewares',
    'json-server-auth.cjs',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--quiet',
  ],
}
