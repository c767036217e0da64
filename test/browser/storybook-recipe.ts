import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { docBlocks } from '../helpers/readme.js'

const execFileAsync = promisify(execFile)

/**
 * What each command runs with, the lines being as written: no terminal to ask questions on, no
 * telemetry sent, and npm on its cache where it has the package (no audit, no funding or update
 * notices): the round trips a user's first install makes once are not made again on every run.
 */
const ENV = {
  ...process.env,
  STORYBOOK_DISABLE_TELEMETRY: '1',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
}

/** Runs one line with `sh` in `cwd`, as a user types it; throws with its output if it fails. */
async function sh(line: string, cwd: string): Promise<void> {
  try {
    await execFileAsync('sh', ['-c', line], { cwd, env: ENV, maxBuffer: 64 << 20 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`\`${line}\` failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`)
  }
}

/** An install line with the packed tarball for the word `taxonomy-mock`, as a published package would be. */
function withTarball(line: string, tarball: string): string {
  if (!/^npm (?:i|install)\b/.test(line)) return line
  return line
    .split(' ')
    .map((word) => (word === 'taxonomy-mock' ? tarball : word))
    .join(' ')
}

/** What following a page left: the folder its `cd` lines ended in, and the files it wrote there. */
interface FollowedPage {
  readonly project: string
  readonly files: readonly string[]
  readonly lines: readonly string[]
}

/**
 * Work started as a given line of a page starts, in the folder the line runs in; the page goes on
 * once both have ended. It must not change what the line reads.
 */
type Beside = Readonly<Record<string, (cwd: string) => Promise<unknown>>>

/**
 * Follows a recipe page as a user does, in `dir`: its shell blocks' lines run one after another
 * (a `cd` line moves the next ones), and each file block, where it comes, is written under the name
 * it gives in the folder the lines are in. `taxonomy-mock` in an install line is `tarball`.
 */
export async function followPage(
  page: string,
  dir: string,
  tarball: string,
  beside: Beside = {},
): Promise<FollowedPage> {
  let cwd = dir
  const files: string[] = []
  const lines: string[] = []
  for (const block of docBlocks(page)) {
    if (block.lang === 'sh') {
      for (const line of block.code.split('\n').map((text) => text.trim())) {
        if (line === '' || line.startsWith('#')) continue
        lines.push(line)
        const cd = /^cd (\S+)$/.exec(line)
        if (cd) cwd = resolve(cwd, cd[1]!)
        else {
          const work = beside[line]?.(cwd)
          await Promise.all([sh(withTarball(line, tarball), cwd), work])
        }
      }
    } else if (block.file !== undefined) {
      mkdirSync(dirname(join(cwd, block.file)), { recursive: true })
      writeFileSync(join(cwd, block.file), block.code)
      files.push(block.file)
    }
  }
  return { project: cwd, files, lines }
}

/** The packages a Storybook 9 project on Vite 7 has in place of those the page's commands install. */
const STORYBOOK_9 = {
  storybook: '^9.1.0',
  '@storybook/react-vite': '^9.1.0',
  vite: '^7.0.0',
  '@vitejs/plugin-react': '^5.0.0',
}

/**
 * A copy of `project` (its files, not its installed packages, lock or build) beside it, on
 * Storybook 9 and Vite 7, installed; resolves to its folder. It copies at once, then installs.
 */
export async function installOnStorybook9(project: string): Promise<string> {
  const copy = `${project}-storybook9`
  const skipped = new Set(['node_modules', 'storybook-static', 'package-lock.json'])
  cpSync(project, copy, {
    recursive: true,
    filter: (source) => !skipped.has(source.slice(project.length + 1).split('/')[0]!),
  })
  const pins = Object.entries(STORYBOOK_9).map(
    ([name, range]) => `devDependencies.${name}=${range}`,
  )
  await sh(`npm pkg set ${pins.map((pin) => `'${pin}'`).join(' ')}`, copy)
  await sh('npm install', copy)
  return copy
}

/** `npx storybook build` in `project`. */
export async function buildStorybook(project: string): Promise<void> {
  await sh('npx storybook build', project)
}
