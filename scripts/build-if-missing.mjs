// package.json's `dependencies` script: npm runs it in this repository after an install that changed
// node_modules, and builds dist/ here when there is none. That is how an install from a git URL gets
// dist/ (git-ignored): npm clones the repository, runs `npm install` in the clone (devDependencies
// included) because package.json has pack scripts, then packs it. npm runs `prepare` there but not
// `prepack`, and a `prepare` script would put this package in npm's install-scripts warning on every
// install of a packed tarball, where npm never runs it. npm runs `dependencies` only for the project
// being installed into, so installing the package from the registry or a tarball runs nothing.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

if (!existsSync(new URL('../dist/', import.meta.url))) {
  const build = spawnSync('npm', ['run', 'build'], {
    stdio: 'inherit',
    shell: process.platform === 'win32',
  })
  process.exitCode = build.status ?? 1
}
