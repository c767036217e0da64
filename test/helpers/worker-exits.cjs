// Preloaded into a `serve --workers` run by a test (NODE_OPTIONS=--require): the primary appends
// each worker's exit, `CODE SIGNAL` (`0 null`, `null SIGKILL`), to the file named by
// TAXONOMY_MOCK_TEST_EXITS, so that a test can tell a worker that stopped from one that was killed.
const cluster = require('node:cluster')
const { appendFileSync } = require('node:fs')

const file = process.env.TAXONOMY_MOCK_TEST_EXITS
if (cluster.isPrimary && file)
  cluster.on('exit', (_worker, code, signal) => appendFileSync(file, `${code} ${signal}\n`))
