import { UsageError } from './usage-error.js'

/** A flag's integer value from `min` to `max`, or `undefined` when the flag is absent. */
export function parseInteger(
  text: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(
      `${name} must be an integer from ${min} to ${max}; received ${JSON.stringify(text.slice(0, 40))}`,
    )
  }
  return value
}

/** What went wrong with the flags, in the words of `--help`. */
export function describeParseError(error: Error & { code?: string }): string {
  const option = /--?[A-Za-z][\w-]*/.exec(error.message)?.[0]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? error.message} (see --help)`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const long = /--[a-z][\w-]*/.exec(error.message)?.[0] ?? option
      return error.message.includes('does not take')
        ? `${long} takes no value (see --help)`
        : `${long} needs a value (see --help)`
    }
    default:
      return `${error.message.split('\n')[0]} (see --help)`
  }
}
