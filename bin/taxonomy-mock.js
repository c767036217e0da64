#!/usr/bin/env node
import module from 'node:module'

// Node 22.1+ keeps the CLI's compiled code on disk between runs (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 and Deno lack the function, Bun has a stub. Hence the import below
// comes after it.
module.enableCompileCache?.()
const { createProcessIo, run } = await import('../dist/cli/main.js')

process.exitCode = await run(process.argv.slice(2), createProcessIo())
