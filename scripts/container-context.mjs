// Lays out the container image's build context in .tmp/container-context/, from this repository
// alone (the build needs no network): the packed package, its one runtime dependency as installed
// here, and the two scripts the image runs (deploy/container/). Then `podman build .` (or
// `docker build -f Containerfile .`) reads only that folder (.dockerignore).
import { execFileSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const CONTEXT = `${ROOT}.tmp/container-context`
const DEPENDENCY = '@redis/client'

/** One line naming the cause, exit 1: what a user can mend, told as such, not as a stack trace. */
function fail(message) {
  console.error(`container-context: ${message}`)
  process.exit(1)
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'))
const { dependencies } = readJson(`${ROOT}package.json`)
if (Object.keys(dependencies).join() !== DEPENDENCY)
  fail(
    `expected ${DEPENDENCY} as the one dependency; package.json has ${Object.keys(dependencies).join(', ')}`,
  )
const manifest = `${ROOT}node_modules/${DEPENDENCY}/package.json`
if (!existsSync(manifest)) fail(`node_modules/${DEPENDENCY} is missing: run npm ci first`)
const installed = readJson(manifest).version
if (installed !== dependencies[DEPENDENCY])
  fail(
    `node_modules has ${DEPENDENCY} ${installed}, package.json pins ${dependencies[DEPENDENCY]}: run npm ci`,
  )

rmSync(CONTEXT, { recursive: true, force: true })
mkdirSync(CONTEXT, { recursive: true })
// dist/ as the sources are now, then packed as npm publishes it.
/** Runs a step whose own output says what went wrong; one line more names the step, exit 1. */
function step(name, file, args, stdio) {
  try {
    execFileSync(file, args, { cwd: ROOT, stdio })
  } catch (error) {
    // Not started at all (`npm` not on PATH): no output of its own says why.
    if (error.code === 'ENOENT') fail(`${name}: cannot run ${file} (not found on PATH)`)
    fail(`${name} failed (${error.code ?? `exit ${error.status}`}); its output is above`)
  }
}

step('building dist/', process.execPath, [`${ROOT}scripts/build-if-stale.mjs`], 'inherit')
step(
  'npm pack',
  'npm',
  ['pack', '--ignore-scripts', '--silent', '--pack-destination', CONTEXT],
  ['ignore', 'ignore', 'inherit'],
)
const [tarball] = readdirSync(CONTEXT).filter((name) => name.endsWith('.tgz'))
renameSync(`${CONTEXT}/${tarball}`, `${CONTEXT}/taxonomy-mock.tgz`)
// The dependency without its source maps and type declarations, which nothing reads at run time.
cpSync(`${ROOT}node_modules/${DEPENDENCY}`, `${CONTEXT}/node_modules/${DEPENDENCY}`, {
  recursive: true,
  filter: (source) => !/\.(map|d\.ts)$/.test(source),
})
for (const script of ['assemble.cjs', 'healthcheck.cjs'])
  cpSync(`${ROOT}deploy/container/${script}`, `${CONTEXT}/${script}`)
console.log(`container-context: ${CONTEXT.slice(ROOT.length)} is ready (${tarball})`)
