#!/usr/bin/env node
// CommonJS, as dist/cli/ is: Node 20 starts it sooner than ES modules (scripts/bundle.mjs).
// The CLI's compiled code is kept between runs: by Node 22.1+ in its compile cache, and by
// dist/cli/code-cache.cjs on Node before that, which lacks one. NODE_DISABLE_COMPILE_CACHE=1
// turns off either. Bun and Deno compile as they do.
const { enableCompileCache } = require('node:module')
const { join } = require('node:path')

const root = join(__dirname, '..')
const main = join(root, 'dist/cli/main.cjs')
let cli = undefined
let saveCodeCache = () => {}
if (enableCompileCache || process.versions.bun || process.versions.deno || process.env.NODE_DISABLE_COMPILE_CACHE) {
  enableCompileCache?.()
  cli = require(main)
} else {
  ;({ exports: cli, saveCodeCache } = require('../dist/cli/code-cache.cjs').requireWithCodeCache(main, root))
}

// Should run() never settle and the event loop empty, the process must not exit 0.
process.exitCode = 1
let command = undefined
cli.run(process.argv.slice(2), cli.createProcessIo(), (name) => (command = name)).then((code) => {
  process.exitCode = code
  // What a `serve` run that started and stopped well compiled, kept for the next start.
  if (command === 'serve' && code === 0) saveCodeCache()
})
