import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { installSpecsOf } from '../helpers/install-lines.js'
import { createEmptyProject, installInto, packTarball } from '../helpers/packed.js'

/** What the other stacks' tests share: a project with the packed tarball installed. */
export interface Stacks {
  /** A project (no "type") that installed what the Python and Go recipes' `npm i -D` lines name. */
  readonly project: string
  /** The single executable `npm run build:binary` makes, built once into a temp folder. */
  readonly binary: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    stacks: Stacks
  }
}

/** The recipes for other languages, each run as written by recipes.stacks.test.ts. */
export const STACK_RECIPES = ['docs/recipes/python-pytest.md', 'docs/recipes/go.md'] as const

const BUILD_BINARY = fileURLToPath(new URL('../../scripts/build-binary.mjs', import.meta.url))

/** The tools CI installs from Debian; a missing one fails the run with its package's name. */
const TOOLS = [
  { command: '/usr/bin/pytest-3', args: ['--version'], debian: 'python3-pytest' },
  { command: 'go', args: ['version'], debian: 'golang-go' },
  { command: 'redis-server', args: ['--version'], debian: 'redis-server' },
]

/** Checks the tools, then packs once and installs the tarball into one project for every test of the `stacks` project. */
export default async function setup(project: TestProject): Promise<void> {
  for (const { command, args, debian } of TOOLS) {
    try {
      execFileSync(command, args, { stdio: 'ignore' })
    } catch {
      throw new Error(`the stacks tests need ${command}: apt-get install ${debian}`)
    }
  }
  const dir = createEmptyProject()
  const binary = join(
    mkdtempSync(join(tmpdir(), 'taxonomy-mock-binary-')),
    'taxonomy-mock-linux-x64',
  )
  // The install and the build in parallel: npm waits on the network, esbuild and postject on the CPU.
  await Promise.all([
    installInto(dir, ...installSpecsOf(STACK_RECIPES, packTarball().tarball)),
    promisify(execFile)(process.execPath, [BUILD_BINARY, '--out', binary]),
  ])
  project.provide('stacks', { project: dir, binary })
}
