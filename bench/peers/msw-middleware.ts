import { join } from 'node:path'
import { copyLauncher } from './launchers.js'
import type { Peer } from './peer.js'
import { PEER_VERSIONS } from './versions.js'

/** The kit's own `createHandlers()` served through MSW's HTTP middleware. */
export const mswMiddleware: Peer = {
  name: `MSW ${PEER_VERSIONS.msw} handlers via @mswjs/http-middleware ${PEER_VERSIONS['@mswjs/http-middleware']}`,
  packages: {
    msw: PEER_VERSIONS.msw,
    '@mswjs/http-middleware': PEER_VERSIONS['@mswjs/http-middleware'],
  },
  withKit: true,
  configure: (dir) => void copyLauncher('msw-server.mjs', dir),
  args: (dir, port) => [join(dir, 'msw-server.mjs'), String(port)],
}
