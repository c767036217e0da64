#!/usr/bin/env node
// Node 22.1+ keeps the CLI's compiled code on disk between runs (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 and Deno lack the function, Bun has a stub. Hence the import below
// comes after it. The builtin comes from process.getBuiltinModule, as in dist/ (scripts/bundle.mjs
// says why).
process.getBuiltinModule('node:module').enableCompileCache?.()
const { createProcessIo, run } = await import('../dist/cli/main.js')

process.exitCode = await run(process.argv.slice(2), createProcessIo())
