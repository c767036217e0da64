#!/usr/bin/env node
// CommonJS, as dist/cli/ is: Node 20 starts it sooner than ES modules (scripts/bundle.mjs).
// Node 22.1+ keeps the CLI's compiled code on disk between runs (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 and Deno lack the function, Bun has a stub. Hence the require below
// comes after it.
require('node:module').enableCompileCache?.()
const { createProcessIo, run } = require('../dist/cli/main.cjs')

// Should run() never settle and the event loop empty, the process must not exit 0.
process.exitCode = 1
run(process.argv.slice(2), createProcessIo()).then((code) => {
  process.exitCode = code
})
