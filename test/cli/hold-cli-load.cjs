// Preloaded (--require) by stop-signals-early.test.ts: holds the loading of the built CLI for
// 1 s, saying so on stderr first, so that a test can send a signal after bin/ has started and
// before the CLI is there, whatever the machine's speed. bin/ loads it by `require` where Node
// keeps a compile cache (22.1+), and compiles it itself with V8's code cache where not (20).
const Module = require('node:module')
const { writeSync } = require('node:fs')

const hold = () => {
  writeSync(2, 'holding\n')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000)
}

const load = Module._load
Module._load = function (request, ...rest) {
  if (request.endsWith('/dist/cli/main.cjs')) hold()
  return load.call(this, request, ...rest)
}

const vm = require('node:vm')
vm.Script = class extends vm.Script {
  constructor(source, options) {
    if (options?.filename?.endsWith('/dist/cli/main.cjs')) hold()
    super(source, options)
  }
}
