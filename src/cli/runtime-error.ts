// Told by its name, as UsageError is: each file of the CLI's build has its own copy of the class.

/** A failure while running, such as a port in use or an unwritable file: exit code 1. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError'

  static override [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Error && value.name === 'RuntimeError'
  }
}
