// Preloaded into a `serve --workers` run by a test (NODE_OPTIONS=--require): each worker waits at
// its very start until the file named by TAXONOMY_MOCK_TEST_GATE exists, so that the test, not the
// machine's load, decides when the workers serve. The primary is no worker: it starts as usual.
const cluster = require('node:cluster')
const { existsSync } = require('node:fs')

const gate = process.env.TAXONOMY_MOCK_TEST_GATE
if (cluster.isWorker && gate) {
  const cell = new Int32Array(new SharedArrayBuffer(4))
  while (!existsSync(gate)) Atomics.wait(cell, 0, 0, 10)
}
