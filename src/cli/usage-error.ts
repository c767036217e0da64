// The CLI's build gives each of its files (main.cjs, commands.cjs, tls.cjs) its own copy of this
// class and of RuntimeError (scripts/bundle.mjs): an error is told by its name, so one thrown by
// another file's copy is still reported with its exit code.

/** A mistake in how the CLI was called or in the data it was given: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'

  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Error && value.name === 'UsageError'
  }
}
