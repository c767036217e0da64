// Builds dist/ unless it was built from the sources as they are now, so that each test script can
// ask for a build and a CI run (or a contributor's second `npm test`) builds once, not once per script.
// The build's inputs are hashed (paths and contents); the hash of the last good build is kept in
// dist/ itself (not packed: package.json's `files` leaves it out), so a build by any other way,
// `npm run build` included, which empties dist/ first, leaves no stale hash behind it.
//
// It is also package.json's `dependencies` script: npm runs it in this repository after an install
// that changed node_modules. That is how an install from a git URL gets dist/ (git-ignored): npm
// clones the repository, runs `npm install` in the clone (devDependencies included) because
// package.json has pack scripts, then packs it. npm runs `prepare` there but not `prepack`, and a
// `prepare` script would put this package in npm's install-scripts warning on every install of a
// packed tarball, where npm never runs it. npm runs `dependencies` only for the project being
// installed into, so installing the package from the registry or a tarball runs nothing.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const INPUTS = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']
const STAMP = `${ROOT}dist/.inputs.sha256`

/** The files of one input, a file or a folder, relative to the root. */
function filesOf(input) {
  const path = `${ROOT}${input}`
  if (!existsSync(path)) return []
  if (statSync(path).isFile()) return [input]
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath.slice(ROOT.length)}/${entry.name}`)
}

function inputsDigest() {
  const hash = createHash('sha256')
  const paths = INPUTS.flatMap(filesOf).sort()
  for (const path of paths) hash.update(`${path}\0`).update(readFileSync(`${ROOT}${path}`))
  return hash.digest('hex')
}

const digest = inputsDigest()
const built = existsSync(STAMP) && readFileSync(STAMP, 'utf8')
if (built === digest) {
  console.log('dist/ is up to date with src/ (npm run build forces a build)')
} else {
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  })
  // npm itself missing from PATH: no output of its own says so.
  if (build.error) console.error(`build-if-stale: cannot run npm run build (${build.error.code})`)
  process.exitCode = build.status ?? 1
  if (build.status === 0) writeFileSync(STAMP, digest)
}
