#!/usr/bin/env node
// Stop signals first: from here on one no longer kills the process but waits for the CLI, which
// handles it as documented (src/cli/process-io.ts). Before this line Node is still starting.
const early = { received: [], listener: (signal) => early.received.push(signal) }
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, early.listener)

// CommonJS, as dist/cli/ is: Node 20 starts it sooner than ES modules (scripts/bundle.mjs).
// Node 22.1+ keeps the CLI's compiled code on disk between runs (NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 lacks the function, and keeps V8's code cache by the function below
// instead; Deno lacks it too and Bun has a stub, and both require the CLI as it is.
// Node's CommonJS loader, as `require('node:module')` gives it, without loading that module's ES
// module loader too.
const Module = module.constructor
const main = require('node:path').join(__dirname, '../dist/cli/main.cjs')
const { createProcessIo, run } = Module.enableCompileCache?.()
  ? require(main)
  : requireWithCodeCache(main)

// Should run() never settle and the event loop empty, the process must not exit 0.
process.exitCode = 1
// Once run() settles the command is over: exit without waiting for output nobody reads, or for
// work a stop signal abandoned (a verify's requests still in flight).
run(process.argv.slice(2), createProcessIo(early)).then((code) => process.exit(code))

/**
 * Node 20 has no compile cache of its own: compiling the CLI's 300 KB took about a tenth of its
 * start-up. This keeps V8's code cache for it in the temp folder, keyed by Node's version and the
 * file's size and time, as Node 22 does. Bun and Deno, and any failure here, take plain `require`.
 */
function requireWithCodeCache(file) {
  if (process.versions.bun || process.versions.deno) return require(file)
  try {
    const fs = require('node:fs')
    const path = require('node:path')
    const vm = require('node:vm')
    const { size, mtimeMs } = fs.statSync(file)
    const folder = path.join(tmpdir(), 'taxonomy-mock-code-cache')
    // Each install has its own files: a hash of the path, then what changes with a build, then
    // the kind of run. A cache holds what the run that wrote it compiled: one written by a first
    // `--version` held none of the server's code, and each start after it compiled that again.
    let where = 2166136261
    for (let i = 0; i < file.length; i++) where = Math.imul(where ^ file.charCodeAt(i), 16777619)
    const prefix = `${process.version}-${process.arch}-${(where >>> 0).toString(36)}-`
    const build = `${prefix}${size}-${mtimeMs}-`
    const name = `${build}${servesBy(process.argv.slice(2)) ? 'serve' : 'other'}.bin`
    const cache = path.join(folder, name)
    // Only a folder of this user's that no one else may write to: the cache is code.
    let cacheFd
    try {
      const { uid, mode } = fs.statSync(folder)
      if (uid === process.getuid?.() && (mode & 0o022) === 0) cacheFd = fs.openSync(cache, 'r')
    } catch {}
    // The file inside Node's module wrapper, decoded once from one buffer: the wrapper joined to
    // the decoded file made V8 flatten a second 300 KB string, young garbage at every start. The
    // file is read into that buffer, and the cache after it once it is decoded: each page of a
    // fresh buffer costs a fault, 10-20 us on a virtual machine.
    const [head, tail] = Module.wrap('\0').split('\0')
    const cacheSize = cacheFd === undefined ? 0 : fs.fstatSync(cacheFd).size
    const buffer = Buffer.allocUnsafeSlow(Math.max(head.length + size + tail.length, cacheSize))
    const start = buffer.write(head, 'latin1')
    const end = start + readInto(fs, file, buffer, start, size)
    const source = buffer.toString('utf8', 0, end + buffer.write(tail, end, 'latin1'))
    const cachedData =
      cacheFd === undefined
        ? undefined
        : buffer.subarray(0, readInto(fs, cacheFd, buffer, 0, cacheSize))
    const script = new vm.Script(source, { filename: file, cachedData })
    const loaded = new Module(file, module)
    loaded.filename = file
    loaded.paths = Module._nodeModulePaths(path.dirname(file))
    script
      .runInThisContext()
      .call(
        loaded.exports,
        loaded.exports,
        Module.createRequire(file),
        loaded,
        file,
        path.dirname(file),
      )
    loaded.loaded = true
    if (cachedData === undefined || script.cachedDataRejected) {
      // Written as the process ends, when it holds what this run compiled (serving included).
      process.once('exit', () => {
        try {
          fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
          // Those of earlier builds go; this build's other kind stays.
          for (const old of fs.readdirSync(folder))
            if (old.startsWith(prefix) && !old.startsWith(build))
              fs.rmSync(path.join(folder, old), { force: true })
          const partial = `${cache}.${process.pid}`
          fs.writeFileSync(partial, script.createCachedData())
          fs.renameSync(partial, cache)
        } catch {}
      })
    }
    return loaded.exports
  } catch {
    return require(file)
  }
}

/**
 * Reads up to `length` bytes of a file (a path, or a descriptor it then closes) into `buffer` at
 * `at`, and says how many it read.
 */
function readInto(fs, from, buffer, at, length) {
  const fd = typeof from === 'number' ? from : fs.openSync(from, 'r')
  try {
    let read = 0
    for (let chunk; read < length; read += chunk)
      if ((chunk = fs.readSync(fd, buffer, at + read, length - read, null)) === 0) break
    return read
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Whether the arguments run `serve`, the default command: none, `serve`, or an option first that
 * is not `--help` or `--version`. (Options before another command count as `serve` here: that
 * run keeps and reads the serve cache, which only costs it time.)
 */
function servesBy(args) {
  const first = args[0]
  if (first === undefined || first === 'serve') return true
  return first.startsWith('-') && !/^(?:-h|--help|-v|--version)(?:=|$)/.test(first)
}

/** `os.tmpdir()`, without loading node:os where it is three variables: everywhere but Windows. */
function tmpdir() {
  if (process.platform === 'win32') return require('node:os').tmpdir()
  const { TMPDIR, TMP, TEMP } = process.env
  const folder = TMPDIR || TMP || TEMP || '/tmp'
  return folder.length > 1 && folder.endsWith('/') ? folder.slice(0, -1) : folder
}
