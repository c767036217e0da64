/**
 * A flag's value as a number, or its text when it is not a decimal number, for the library to
 * judge either way: its message, bounds included, is the one printed. `undefined` when absent.
 */
export function toNumberOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined
  const trimmed = text.trim()
  return /^-?\d+(?:\.\d+)?$/.test(trimmed) ? Number(trimmed) : text
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

/**
 * `--seed -3` becomes `--seed=-3`, so the value is judged as a number rather than read as a flag
 * (node:util's parseArgs takes a value that starts with `-` for a flag of its own).
 */
export function attachNegativeValues(
  argv: readonly string[],
  options: Readonly<Record<string, { readonly type: string }>>,
): string[] {
  const result: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '')
    const next = argv[i + 1]
    if (
      argv[i]!.startsWith('--') &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      result.push(`${argv[i]}=${next}`)
      i++
    } else {
      result.push(argv[i]!)
    }
  }
  return result
}
