// Run by bench/session-data.ts in a fresh process: what sessions with the `huge-lists` preset add to
// a server's memory. The server runs here, so its heap can be measured after a full collection; the
// client's own garbage is collected with it. Prints the figures as JSON.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { startServer } from '../dist/server/index.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const sessions = Number(process.argv[2] ?? 16)
const MB = 1024 * 1024

/** Heap used and RSS after two full collections, in MB. */
function settled(): { heapMb: number; rssMb: number } {
  gc()
  gc()
  const { heapUsed, rss } = process.memoryUsage()
  return { heapMb: heapUsed / MB, rssMb: rss / MB }
}

const server = await startServer({ port: 0, host: '127.0.0.1' })
const headers = (session: string) => ({
  authorization: 'Bearer taxonomy-mock-key',
  'x-taxonomy-mock-session': session,
})
/** Asks for the two huge records in `session`, so that their bodies are built and kept. */
async function readHuge(session: string): Promise<void> {
  for (const path of ['disciplines/huge-discipline', 'sub_disciplines/huge-sub-discipline']) {
    const response = await fetch(`${server.url}/api/v2/${path}`, { headers: headers(session) })
    await response.arrayBuffer()
    if (response.status !== 200)
      throw new Error(`${path} in ${session} answered ${response.status}`)
  }
}
async function setHuge(session: string): Promise<void> {
  const response = await fetch(`${server.url}/__admin/sessions/${session}/data`, {
    method: 'PUT',
    body: '{"preset":"huge-lists"}',
  })
  await response.arrayBuffer()
  if (response.status !== 200)
    throw new Error(`PUT data for ${session} answered ${response.status}`)
}

try {
  // The server warmed up, its data built and a session's plain answer served: the baseline.
  const warm = await fetch(`${server.url}/api/v2/disciplines/no-such-slug`, {
    headers: headers('w'),
  })
  await warm.arrayBuffer()
  const before = settled()
  await setHuge('s0')
  await readHuge('s0')
  const one = settled()
  for (let i = 1; i < sessions; i++) {
    await setHuge(`s${i}`)
    await readHuge(`s${i}`)
  }
  const all = settled()
  console.log(
    JSON.stringify({
      sessions,
      oneHeapMb: one.heapMb - before.heapMb,
      oneRssMb: one.rssMb - before.rssMb,
      allHeapMb: all.heapMb - before.heapMb,
      allRssMb: all.rssMb - before.rssMb,
      baseHeapMb: before.heapMb,
    }),
  )
} finally {
  await server.close()
}
