// Preloaded (--require) by stop-signals-early.test.ts: holds the loading of the built CLI for
// 1 s, saying so on stderr first, so that a test can send a signal after bin/ has started and
// before the CLI is there, whatever the machine's speed.
const Module = require('node:module')
const { writeSync } = require('node:fs')

const load = Module._load
Module._load = function (request, ...rest) {
  if (request.endsWith('/dist/cli/main.cjs')) {
    writeSync(2, 'holding\n')
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000)
  }
  return load.call(this, request, ...rest)
}
