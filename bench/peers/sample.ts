import { createTaxonomy } from '../../dist/index.js'
import { BIN, startListening } from '../processes.js'
import { KEY } from '../wrk.js'
import type { Sample } from './peer.js'

const REFERENCE_HEADERS = [
  'content-type',
  'content-length',
  'access-control-allow-origin',
  'access-control-expose-headers',
]

/** The kit server's answer for the first discipline of the default dataset: what every peer must send. */
export async function captureSample(): Promise<Sample> {
  const slug = createTaxonomy().disciplines[0]!.slug
  const path = `/api/v2/disciplines/${slug}`
  const server = await startListening(process.execPath, [BIN, '--port', '0', '--quiet'])
  try {
    const response = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${KEY}` },
    })
    if (response.status !== 200) throw new Error(`the kit answered ${response.status} for ${path}`)
    const body = Buffer.from(await response.arrayBuffer())
    const headers = Object.fromEntries(
      REFERENCE_HEADERS.map((name) => [name, response.headers.get(name) ?? '']),
    )
    return { slug, path, body, headers }
  } finally {
    server.child.kill('SIGTERM')
  }
}
