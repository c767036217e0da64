import {
  AbstractStartedContainer,
  GenericContainer,
  Wait,
  type StartedTestContainer,
} from 'testcontainers'
import type { Fixture } from '../core/types.js'
import { SESSION_HEADER } from '../http/header-names.js'
import type { ScenarioInput } from '../http/scenario.js'
import { createSessionClient, type SessionClient } from '../http/session-client.js'

/** The tag the README's build line gives the image: `podman build -t taxonomy-mock .` */
export const DEFAULT_IMAGE = 'taxonomy-mock'

/** The port the image's server listens on (`TAXONOMY_MOCK_PORT` of its Containerfile). */
const PORT = 4477

/** Where `withData` puts the fixture in the container: the image's working folder. */
const DATA_PATH = '/app/taxonomy-mock-data.json'

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
  // A private field, not TypeScript's `private`: `util.inspect` of the container shows no key.
  #adminKey = `testcontainers-${crypto.randomUUID()}`

  constructor(image: string = DEFAULT_IMAGE) {
    super(image)
    this.withExposedPorts(PORT).withWaitStrategy(Wait.forHttp('/__health', PORT).forStatusCode(200))
  }

  /** The dataset's seed (`TAXONOMY_MOCK_SEED`). */
  withSeed(seed: number): this {
    return this.withEnvironment({ TAXONOMY_MOCK_SEED: String(seed) })
  }

  /** The generated dataset's size (`--size`). */
  withSize(size: 'small' | 'medium' | 'large'): this {
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
    if (typeof data === 'string')
      this.withCopyFilesToContainer([{ source: data, target: DATA_PATH }])
    else this.withCopyContentToContainer([{ content: JSON.stringify(data), target: DATA_PATH }])
    this.flags.push('--data', DATA_PATH)
    return this
  }

  /** The admin API's key (`TAXONOMY_MOCK_ADMIN_KEY`). @default a random one */
  withAdminKey(key: string): this {
    this.#adminKey = key
    return this
  }

  override async start(): Promise<StartedTaxonomyMockContainer> {
    this.withEnvironment({ TAXONOMY_MOCK_ADMIN_KEY: this.#adminKey })
    this.withCommand(['serve', ...this.flags])
    return new StartedTaxonomyMockContainer(await super.start(), this.#adminKey)
  }
}

/** A started taxonomy-mock container: its URL on the host, and its sessions. */
export class StartedTaxonomyMockContainer extends AbstractStartedContainer {
  readonly #adminKey: string

  constructor(started: StartedTestContainer, adminKey: string) {
    super(started)
    this.#adminKey = adminKey
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
