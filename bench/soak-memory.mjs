// Loaded into the soak's server process only (`node --expose-gc --import`, never by the package):
// on SIGUSR2, a full garbage collection, then the memory still in use (V8's heap and the memory
// outside it: Buffers, array buffers) as one line on stdout. RSS also counts garbage not yet
// collected and space V8 keeps after collecting, so it moves with the collector's timing: the large
// soak's RSS stepped up by about 200 MB in some runs of the same code and stayed flat in others.
import { writeSync } from 'node:fs'

process.on('SIGUSR2', () => {
  globalThis.gc()
  const { heapUsed, external } = process.memoryUsage()
  writeSync(1, `taxonomy-mock-soak-memory ${JSON.stringify({ heapUsed, external })}\n`)
})
