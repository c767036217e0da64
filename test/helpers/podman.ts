import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { createGzip } from 'node:zlib'
import { afterEachSteps } from './after-each.js'

const execFileAsync = promisify(execFile)

/**
 * Runs Debian's `podman` with the test harness's own containers.conf (`CONTAINERS_CONF`, set by
 * test/containers/global-setup.ts), and answers its stdout; a failure rejects with its stderr.
 */
export async function podman(args: readonly string[], timeout = 300_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync('podman', args, {
      encoding: 'utf8',
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    })
    return stdout.trim()
  } catch (error) {
    const { stderr, message } = error as Error & { stderr?: string }
    throw new Error(`podman ${args.slice(0, 3).join(' ')} failed: ${(stderr || message).trim()}`)
  }
}

/** The host port a container's port is published on (`-p 127.0.0.1::4477`). */
export async function publishedPort(container: string, port = 4477): Promise<number> {
  const line = await podman(['port', container, `${port}/tcp`])
  return Number(/:(\d+)$/.exec(line.split('\n')[0]!)![1])
}

/** A container's address on a podman network. */
export async function containerAddress(container: string, network: string): Promise<string> {
  return podman([
    'inspect',
    container,
    '--format',
    `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`,
  ])
}

const started = new Set<string>()

/**
 * Starts a container (`podman run -d`) named `name`, removed after the test (test/setup/after-each.ts)
 * unless `keep` (then the caller removes it, as a file's shared containers are).
 */
export async function runContainer(
  name: string,
  args: readonly string[],
  { keep = false }: { keep?: boolean } = {},
): Promise<string> {
  if (!keep) started.add(name)
  await podman(['run', '-d', '--name', name, ...args])
  return name
}

/** Removes containers at once (SIGKILL), those already gone too. */
export async function removeContainers(names: readonly string[]): Promise<void> {
  if (names.length > 0) await podman(['rm', '-f', '-t', '0', '--ignore', ...names])
}

afterEachSteps.add(async () => {
  const names = [...started]
  started.clear()
  await removeContainers(names)
})

/** `podman save IMAGE | gzip`: the bytes a registry would store and a pull would move. */
export async function compressedSize(image: string): Promise<number> {
  const save = spawn('podman', ['save', image], { stdio: ['ignore', 'pipe', 'inherit'] })
  let bytes = 0
  const gzip = save.stdout.pipe(createGzip())
  gzip.on('data', (chunk: Buffer) => (bytes += chunk.length))
  await new Promise((resolve, reject) => gzip.on('end', resolve).on('error', reject))
  return bytes
}
