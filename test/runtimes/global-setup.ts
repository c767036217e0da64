import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { packTarball } from '../helpers/packed.js'

/** Where the runtimes and the project that installed the packed tarball live. */
export interface Runtimes {
  readonly bun: string
  readonly bunx: string
  readonly deno: string
  /** A project ("type": "module") with the packed tarball in node_modules, nothing else. */
  readonly project: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    runtimes: Runtimes
  }
}

// From the npm registry (the binaries come as the packages' optional dependencies), pinned so that
// a runtime's new release cannot turn CI red on its own; bump them on purpose.
const PACKAGES = ['bun@1.4.5', 'deno@2.9.6']
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  })

/** Installs Bun and Deno into a temp folder (never into this repository) and the packed tarball into a project. */
export default function setup(project: TestProject): void {
  const tools = mkdtempSync(join(tmpdir(), 'taxonomy-mock-runtimes-'))
  chmodSync(tools, 0o755)
  // npm 11 skips their postinstall scripts; the launchers in node_modules/.bin run the binaries anyway.
  npm(['install', '--no-save', '--no-package-lock', ...PACKAGES], tools)
  const consumer = mkdtempSync(join(tmpdir(), 'taxonomy-mock-runtime-project-'))
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'runtime-consumer', private: true, type: 'module' }),
  )
  npm(['install', '--prefer-offline', packTarball().tarball], consumer)
  const bin = (name: string) => join(tools, 'node_modules/.bin', name)
  project.provide('runtimes', {
    bun: bin('bun'),
    bunx: bin('bunx'),
    deno: bin('deno'),
    project: consumer,
  })
}
