import { BIN } from '../processes.js'
import type { Peer } from './peer.js'

/** taxonomy-mock's own server from this repository's build, default dataset, no request log. */
export const kit: Peer = {
  name: 'taxonomy-mock (this repo)',
  packages: {},
  configure: () => {},
  args: (_dir, port) => [BIN, '--port', String(port), '--quiet'],
}
