// Preloaded into a `serve --workers` run by a test (NODE_OPTIONS=--require): each worker waits at
// its very start until the file named by TAXONOMY_MOCK_TEST_GATE exists, so that the test, not the
// machine's load, decides when the workers serve. The primary is no worker: it starts as usual.
// A test that fails before it opens the gate kills the primary: a held worker then exits rather
// than wait for ever.
const cluster = require('node:cluster')
const { existsSync } = require('node:fs')

const gate = process.env.TAXONOMY_MOCK_TEST_GATE
if (cluster.isWorker && gate) {
  const primary = process.ppid
  const cell = new Int32Array(new SharedArrayBuffer(4))
  while (!existsSync(gate)) {
    // `process.ppid` is read once at start; signal 0 says whether the primary still exists.
    try {
      process.kill(primary, 0)
    } catch {
      process.exit(1)
    }
    Atomics.wait(cell, 0, 0, 10)
  }
}
