import { statSync, type Stats } from 'node:fs'
import { inspect, type InspectOptions } from 'node:util'
import {
  AbstractStartedContainer,
  GenericContainer,
  Wait,
  type StartedTestContainer,
} from 'testcontainers'
import type { Fixture } from '../core/types.js'
import { formatReceived } from '../core/size.js'
import { SESSION_HEADER } from '../http/header-names.js'
import { describeKeyFault, isApiKey } from '../http/options.js'
import type { ScenarioInput } from '../http/scenario.js'
import { createSessionClient, type SessionClient } from '../http/session-client.js'

/** The tag the README's build line gives the image: `podman build -t taxonomy-mock .` */
export const DEFAULT_IMAGE = 'taxonomy-mock'

/** The port the image's server listens on (`TAXONOMY_MOCK_PORT` of its Containerfile). */
const PORT = 4477

/** Where `withData` puts the fixture in the container: the image's working folder. */
const DATA_PATH = '/app/taxonomy-mock-data.json'

/** The variable that carries the admin key into the container. */
const ADMIN_KEY_VARIABLE = 'TAXONOMY_MOCK_ADMIN_KEY'

/**
 * Flags the container sets itself: the admin key its client sends (`withAdminKey`), and the port,
 * interface and plain HTTP its health wait and `getUrl()` expect. Given again, the server's would
 * win: every `session()` a 403, or `start()` waiting out its timeout.
 */
const MANAGED_FLAG = /^(?:--admin-key|--port|--host|--tls(?:-[a-z-]+)?)(?:=|$)/
/**
 * `-p` as the CLI reads it: alone, with its value attached (`-p5000`) or after short flags that
 * take none (`-qp5000`), each of which sets the port.
 */
const SHORT_PORT_FLAG = /^-[hqv]*p/
/** Flags and variables whose values are secrets (keys, URLs that may carry a password): hidden in summaries. */
const SECRET_FLAG = /^(?:--api-key|--store|--upstream)(?:=|$)/
const SECRET_VARIABLE = /KEY|STORE|UPSTREAM|SECRET|TOKEN|PASSWORD/i

/** A session of the started container, as the other fixtures give it, with its admin client. */
export interface ContainerSession extends SessionClient {
  /** The server's origin on the host: `getUrl()`. */
  readonly url: string
  /** The session id the app's requests name. */
  readonly session: string
  /** The session header, to spread into the app's requests. */
  readonly headers: Readonly<Record<string, string>>
  /** `url` with the session's path prefix (`/__sessions/{id}`), for a client that cannot send headers. */
  readonly sessionUrl: string
}

/**
 * The taxonomy-mock image as a Testcontainers container: `start()` waits for `/__health` and
 * answers a {@link StartedTaxonomyMockContainer}. The admin API is reached through the published
 * port, so the server gets an admin key (random unless `withAdminKey` names one).
 *
 * @example
 * const mock = await new TaxonomyMockContainer().withSeed(42).withSize('small').start()
 * const taxonomy = await mock.session()
 * await taxonomy.use('unavailable')
 * await fetch(`${mock.getUrl()}/api/v2/disciplines/x`, { headers: taxonomy.headers })
 */
export class TaxonomyMockContainer extends GenericContainer {
  private readonly flags: string[] = []
  // A private field, not TypeScript's `private`: `util.inspect` of the container shows no key
  // (and `toJSON` below hides the copy `start()` puts in the environment).
  #adminKey = `testcontainers-${crypto.randomUUID()}`
  /** The fixture file `withData` named, checked by `start()`. */
  #dataFile: string | undefined

  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    // A server that exits at once (a bad seed or fixture) fails `start()` with its own lines, not
    // after the whole startup timeout with "URL /__health not accessible".
    const health = Wait.forHttp('/__health', PORT, { abortOnContainerExit: true })
    this.withExposedPorts(PORT).withWaitStrategy(health.forStatusCode(200))
  }

  /** The dataset's seed (`TAXONOMY_MOCK_SEED`). */
  withSeed(seed: number): this {
    return this.withEnvironment({ TAXONOMY_MOCK_SEED: String(seed) })
  }

  /** The generated dataset's size (`--size`). */
  withSize(size: 'small' | 'medium' | 'large'): this {
    // Counts or another value went into the command as it was: an object there, or a number, is
    // no argument the container's command can hold.
    if (size !== 'small' && size !== 'medium' && size !== 'large')
      throw new TypeError(
        `withSize: size must be 'small', 'medium' or 'large'; received ${formatReceived(size)}`,
      )
    this.flags.push('--size', size)
    return this
  }

  /** The default session's scenario (`--scenario`): a kind, or a whole scenario. */
  withScenario(scenario: ScenarioInput): this {
    this.flags.push(
      '--scenario',
      typeof scenario === 'string' ? scenario : JSON.stringify(scenario),
    )
    return this
  }

  /**
   * Serves a fixture instead of generated data (`--data`): the path of a fixture file on this
   * machine, or the fixture itself. It is copied into the container before it starts.
   */
  withData(data: string | Fixture): this {
    if (typeof data === 'string') {
      this.#dataFile = data
      // Readable by the image's user (10001) whatever the file's own mode (a umask of 077 makes it 0600).
      this.withCopyFilesToContainer([{ source: data, target: DATA_PATH, mode: 0o644 }])
    } else this.withCopyContentToContainer([{ content: JSON.stringify(data), target: DATA_PATH }])
    this.flags.push('--data', DATA_PATH)
    return this
  }

  /** The admin API's key (`TAXONOMY_MOCK_ADMIN_KEY`). @default a random one */
  withAdminKey(key: string): this {
    // Checked here: `undefined` sent no key with the admin calls (every session() a 403), and a
    // key the server refuses ended start() only once the container was made. Never quoted.
    if (key === undefined || !isApiKey(key))
      throw new TypeError(`withAdminKey: the key must be ${describeKeyFault(key)}`)
    this.#adminKey = key
    return this
  }

  /**
   * More `serve` flags, after those the other methods set: any flag of `taxonomy-mock serve`.
   *
   * @example
   * new TaxonomyMockContainer().withFlags('--any-key', '--delay', '300')
   */
  withFlags(...flags: string[]): this {
    const other = flags.findIndex((flag) => typeof flag !== 'string')
    if (other !== -1)
      throw new TypeError(
        `withFlags: each flag must be a string, as a command line holds it; received ${formatReceived(flags[other])}`,
      )
    const managed = flags.find((flag) => MANAGED_FLAG.test(flag) || SHORT_PORT_FLAG.test(flag))
    if (managed !== undefined)
      throw new TypeError(
        `withFlags: ${SHORT_PORT_FLAG.test(managed) ? '-p' : managed.split('=')[0]} is the container's own (the admin key by withAdminKey; the port, host and plain HTTP its health wait and getUrl() expect)`,
      )
    this.flags.push(...flags)
    return this
  }

  /** Refused: `start()` runs `serve` with the flags the methods set; `withFlags` adds more. */
  override withCommand(command: string[]): this {
    throw new TypeError(
      `TaxonomyMockContainer runs \`serve\` with the flags its methods set: pass more with withFlags(...), not withCommand; received withCommand(${JSON.stringify(command)})`,
    )
  }

  override async start(): Promise<StartedTaxonomyMockContainer> {
    // Checked here, before Testcontainers makes the container, not where it is named: a test may
    // write the file after it sets the container up (in `beforeAll`, before `start()`).
    if (this.#dataFile !== undefined) checkDataFile(this.#dataFile)
    this.withEnvironment({ [ADMIN_KEY_VARIABLE]: this.#adminKey })
    super.withCommand(['serve', ...this.flags])
    return new StartedTaxonomyMockContainer(await super.start(), this.#adminKey)
  }

  /**
   * What a log line or an assertion's diff shows (`JSON.stringify`, which Vitest's and Jest's diffs
   * call): the image, flags and environment, the admin key's value hidden.
   */
  toJSON(): Record<string, unknown> {
    const environment = Object.fromEntries(
      Object.entries(this.environment).map(([name, value]) => [
        name,
        SECRET_VARIABLE.test(name) ? '[hidden]' : value,
      ]),
    )
    return { image: this.imageName.string, flags: hideSecretValues(this.flags), environment }
  }

  /** What `util.inspect` shows: {@link toJSON}'s summary, not the environment Testcontainers keeps. */
  [inspect.custom](_depth: number, options: InspectOptions): string {
    return `TaxonomyMockContainer ${inspect(this.toJSON(), options)}`
  }
}

/**
 * `withData`'s file, checked where it is given: Testcontainers reads it only in `start()`, after
 * it has made the container, which its bare ENOENT then leaves behind (with no reaper, as on Podman).
 */
function checkDataFile(path: string): void {
  let info: Stats
  try {
    info = statSync(path)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : (code ?? message)
    throw new TypeError(`withData: cannot read ${JSON.stringify(path)}: ${reason}`)
  }
  if (info.isDirectory())
    throw new TypeError(`withData: ${JSON.stringify(path)} is a directory, not a fixture file`)
}

/** Flags as a summary shows them: the value of a secret one (`--api-key K`, `--store=URL`) hidden. */
function hideSecretValues(flags: readonly string[]): string[] {
  return flags.map((flag, index) => {
    if (SECRET_FLAG.test(flag) && flag.includes('=')) return `${flag.split('=')[0]}=[hidden]`
    const before = flags[index - 1]
    return before !== undefined && SECRET_FLAG.test(before) && !before.includes('=')
      ? '[hidden]'
      : flag
  })
}

/** A started taxonomy-mock container: its URL on the host, and its sessions. */
export class StartedTaxonomyMockContainer extends AbstractStartedContainer {
  readonly #adminKey: string

  constructor(started: StartedTestContainer, adminKey: string) {
    super(started)
    this.#adminKey = adminKey
  }

  /**
   * What a log line or an assertion's diff shows: the container's id, name and URL, not
   * Testcontainers' copy of its `docker inspect`, whose environment holds the admin key.
   */
  toJSON(): Record<string, unknown> {
    return { id: this.getId(), name: this.getName(), url: this.getUrl() }
  }

  /** What `util.inspect` shows: {@link toJSON}'s summary. */
  [inspect.custom](_depth: number, options: InspectOptions): string {
    return `StartedTaxonomyMockContainer ${inspect(this.toJSON(), options)}`
  }

  /** The server's origin on the host, e.g. `http://localhost:32768`. */
  getUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(PORT)}`
  }

  /**
   * A session of the server, made afresh (no scenario, data or requests): `id`, or a new one.
   * Its requests carry `headers`; `forget()` removes it when done.
   */
  async session(id: string = `testcontainers-${crypto.randomUUID()}`): Promise<ContainerSession> {
    const url = this.getUrl()
    const client = createSessionClient({ url, session: id, adminKey: this.#adminKey })
    await client.reset()
    const session: ContainerSession = {
      ...client,
      url,
      session: id,
      headers: { [SESSION_HEADER]: id },
      sessionUrl: `${url}/__sessions/${id}`,
    }
    // The matchers read the journal with it; not enumerable, so no diff prints it.
    Object.defineProperty(session, 'adminKey', { value: this.#adminKey, enumerable: false })
    return session
  }
}
