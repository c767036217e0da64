// The single executable's program (scripts/build-binary.mjs bundles it with the whole CLI): what
// bin/taxonomy-mock.cjs does, less its code cache, which Node's single executable has its own of.
const early = { received: [], listener: (signal) => early.received.push(signal) }
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, early.listener)

const { createProcessIo, run } = require('../src/cli/main.ts')

// A `--workers` worker is forked as `<executable> <script> ARGS`, the script being the primary's
// `process.argv[1]`: in a single executable, the path it was started by. Node puts its own path
// before that, so a worker's first argument is that script, not one of ARGS.
const args = process.argv.slice(2)
if (require('node:cluster').isWorker) args.shift()

// As bin/taxonomy-mock.cjs: never exit 0 by an empty event loop; exit once run() settles.
process.exitCode = 1
run(args, createProcessIo(early)).then((code) => process.exit(code))
