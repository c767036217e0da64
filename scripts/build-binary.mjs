// `npm run build:binary`: the CLI as one executable for machines without Node, through Node's
// single-executable applications: the whole CLI (every command, HTTPS, the Redis client of
// `--store`) bundled into one CommonJS file, made a preparation blob by
// `node --experimental-sea-config`, and injected with postject into a copy of a Node binary.
//
//   node scripts/build-binary.mjs [--node PATH] [--out FILE]
//
// By default the Node running this script is copied, and the file is
// binary/taxonomy-mock-<platform>-<arch> (`.exe` on Windows). `--node` takes another platform's
// Node binary of the same version (from nodejs.org) to build for that platform; see
// docs/deployment.md#a-single-executable.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { inject } from 'postject'
import { NODE_COMMONJS } from './cli-bundle.mjs'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const OUT_DIR = join(ROOT, 'binary')
// The fuse string a Node binary holds for single executables, as Node's documentation names it.
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'

/** A bad flag or `--node` file: one line, exit 2, before anything is built or written. */
function refuse(message) {
  console.error(`build-binary: ${message}`)
  process.exit(2)
}

/** The flags, judged: a parseArgs error is said in one line rather than as its stack. */
function readFlags() {
  try {
    return parseArgs({ options: { node: { type: 'string' }, out: { type: 'string' } } }).values
  } catch (error) {
    const flag = /'(-[^'\s]+)/.exec(error.message)?.[1]
    if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      refuse(`unknown option ${flag}; it takes --node PATH and --out FILE`)
    if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') refuse(`${flag} needs a value`)
    refuse(error.message)
  }
}

const values = readFlags()
if (values.node !== undefined) {
  const info = statSync(values.node, { throwIfNoEntry: false })
  if (info === undefined) refuse(`cannot read --node ${JSON.stringify(values.node)}: no such file`)
  if (!info.isFile()) refuse(`--node ${JSON.stringify(values.node)} is not a file`)
}
const suffix = process.platform === 'win32' ? '.exe' : ''
const out =
  values.out ?? join(OUT_DIR, `taxonomy-mock-${process.platform}-${process.arch}${suffix}`)
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

/** The package's version as a constant: the executable has no package.json beside it. */
const versionConstant = {
  name: 'version-constant',
  setup(build) {
    build.onLoad({ filter: /src[\\/]cli[\\/]version\.ts$/ }, () => ({
      contents: `export const readVersion = () => ${JSON.stringify(version)}`,
      loader: 'ts',
    }))
  },
}

// The bundle, the configuration and the blob: a temp folder of this build's own.
const work = mkdtempSync(join(tmpdir(), 'taxonomy-mock-sea-'))
// Removed however the build ends; so is a copy of Node the blob did not reach, which would run as
// plain Node under the executable's name.
let copied = false
try {
  const bundle = join(work, 'taxonomy-mock.cjs')
  // One file: every command, HTTPS and the Redis client bundled in.
  await build({
    ...NODE_COMMONJS,
    entryPoints: ['scripts/binary-main.cjs'],
    outfile: bundle,
    plugins: [versionConstant],
  })

  // V8's code cache is for the Node that builds it: only when the executable is that Node.
  const blob = join(work, 'sea-prep.blob')
  const config = join(work, 'sea-config.json')
  writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: values.node === undefined,
    }),
  )
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: 'inherit' })

  mkdirSync(dirname(out), { recursive: true })
  copyFileSync(values.node ?? process.execPath, out)
  copied = true
  chmodSync(out, 0o755)
  // Node looks for the blob in a segment of that name on macOS; other formats ignore the option.
  await inject(out, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: SEA_FUSE,
    machoSegmentName: 'NODE_SEA',
  })
} catch (error) {
  if (copied) rmSync(out, { force: true })
  throw error
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(`wrote ${out}`)
