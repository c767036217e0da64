#!/usr/bin/env node
// Stop signals first: from here on one no longer kills the process but waits for the CLI, which
// handles it as documented (src/cli/process-io.ts). Before this line Node is still starting.
const early = { received: [], listener: (signal) => early.received.push(signal) }
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, early.listener)

// CommonJS, as dist/cli/ is: Node 20 starts it sooner than ES modules (scripts/bundle.mjs).
// Node 22.1+ keeps the CLI's compiled code on disk between runs (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 and Deno lack the function, Bun has a stub. Hence the require below
// comes after it.
require('node:module').enableCompileCache?.()
const { createProcessIo, run } = require('../dist/cli/main.cjs')

// Should run() never settle and the event loop empty, the process must not exit 0.
process.exitCode = 1
// Once run() settles the command is over: exit without waiting for output nobody reads, or for
// work a stop signal abandoned (a verify's requests still in flight).
run(process.argv.slice(2), createProcessIo(early)).then((code) => process.exit(code))
