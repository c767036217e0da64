import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { copyLauncher } from './launchers.js'
import type { Peer } from './peer.js'
import { PEER_VERSIONS } from './versions.js'

/** fastify with hand-written routes: what a user writes when no mock tool fits. */
export const fastify: Peer = {
  name: `fastify ${PEER_VERSIONS.fastify}, hand-written routes`,
  packages: { fastify: PEER_VERSIONS.fastify },
  configure(dir, sample) {
    writeFileSync(join(dir, 'discipline.json'), sample.body)
    writeFileSync(join(dir, 'slug.txt'), sample.slug)
    copyLauncher('fastify-server.mjs', dir)
  },
  args: (dir, port) => [join(dir, 'fastify-server.mjs'), String(port)],
}
