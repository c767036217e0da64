/** The discipline answer every peer must reproduce: the kit's own bytes for the first slug. */
export interface Sample {
  readonly slug: string
  /** `/api/v2/disciplines/<slug>` */
  readonly path: string
  readonly body: Buffer
  /** The kit's content and CORS headers, for the bare reference. */
  readonly headers: Readonly<Record<string, string>>
}

/** One tool a user might pick instead of the kit, set up to answer the sample. */
export interface Peer {
  /** The row's name, with the pinned version. */
  readonly name: string
  /** Exact versions installed into the peer's own temp folder; none for the kit itself. */
  readonly packages: Readonly<Record<string, string>>
  /** Also install the kit's packed tarball, as a user's project would have it. */
  readonly withKit?: boolean
  /** Writes the peer's configuration into its folder. */
  configure(dir: string, sample: Sample): void
  /** Node's arguments (after `node`) that serve the configuration on 127.0.0.1:`port`. */
  args(dir: string, port: number): string[]
}

/** The spec's §7 bodies, with the statuses the kit chose (README "Choices"). */
export const UNAUTHORIZED = { status: 401, body: '{"error":"Invalid or missing API key"}' }
export const NOT_FOUND = { status: 404, body: '{"error":"Resource not found"}' }
