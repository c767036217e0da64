/** A mistake in how the CLI was called or in the data it was given: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** A failure while running, such as a port in use or an unwritable file: exit code 1. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError'
}
