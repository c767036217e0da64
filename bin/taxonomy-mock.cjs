#!/usr/bin/env node
// CommonJS, as dist/cli/ is: Node 20 starts it sooner than ES modules (scripts/bundle.mjs).
// The CLI's compiled code is kept between runs: by Node 22.1+ in its compile cache, and on Node 20,
// which lacks one, by dist/cli/code-cache.cjs. NODE_DISABLE_COMPILE_CACHE=1 turns off either.
// Bun has a stub of enableCompileCache; Deno lacks it but is not Node 20.
const { enableCompileCache } = require('node:module')
const { join } = require('node:path')

const root = join(__dirname, '..')
const main = join(root, 'dist/cli/main.cjs')
let cli = undefined
let saveCodeCache = () => {}
if (enableCompileCache || process.versions.deno || process.env.NODE_DISABLE_COMPILE_CACHE) {
  enableCompileCache?.()
  cli = require(main)
} else {
  ;({ exports: cli, saveCodeCache } = require('../dist/cli/code-cache.cjs').requireWithCodeCache(main, root))
}

let command = undefined
cli.run(process.argv.slice(2), cli.createProcessIo(), (name) => (command = name)).then((code) => {
  process.exitCode = code
  // What a `serve` run compiled, kept for the next start.
  if (command === 'serve') saveCodeCache()
})
