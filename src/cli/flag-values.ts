import { cutText, SHOWN_VALUE_MAX, toQuotedValue } from '../core/shown-text.js'
import { UsageError } from './usage-error.js'

/**
 * A flag's value as a number, or its text when it is not a decimal number, for the library to
 * judge either way: its message, bounds included, is the one printed. A decimal no number holds
 * exactly as typed (`9007199254740993`, `0.99999999999999999999`, which would be read as
 * `…992` and `1`) is passed as its text too, so it is refused quoting what was typed.
 * `undefined` when absent.
 */
export function toNumberOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined
  const trimmed = text.trim()
  if (!/^-?\d+(?:\.\d+)?$/.test(trimmed)) return text
  const number = Number(trimmed)
  return toDigits(trimmed) === toDigits(String(number)) ? number : text
}

/**
 * A whole-number flag's value (`--port`, `--seed`, `--workers`, ...) as {@link toNumberOrText}
 * reads it, but with a fraction, `.0` included, as its text: `--port 4701.0` is refused quoting
 * what was typed, as `--workers 2.0` is, rather than read as 4701. One rule for every such flag.
 */
export function toWholeNumberOrText(text: string | undefined): number | string | undefined {
  return text?.includes('.') ? text : toNumberOrText(text)
}

/**
 * A decimal (`-0012.50`, `1.5e-7`) as its significant digits and the power of ten of the last
 * one, without its sign: `125e-1`, `15e-8`. Two decimals of one value give the same text, however
 * many leading or trailing zeros they have.
 */
function toDigits(decimal: string): string {
  const [mantissa = '', exponent = '0'] = decimal.replace(/^-/, '').split('e')
  const [whole = '', fraction = ''] = mantissa.split('.')
  const digits = `${whole}${fraction}`.replace(/^0+/, '')
  const significant = digits.replace(/0+$/, '')
  if (significant === '') return '0'
  const power = Number(exponent) - fraction.length + digits.length - significant.length
  return `${significant}e${power}`
}

/** What went wrong with the flags, in the words of `--help`. */
export function describeParseError(error: Error & { code?: string }): string {
  const option = /--?[A-Za-z][\w-]*/.exec(error.message)?.[0]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      // The option parseArgs quotes first: `-5` too, which `option` misses (no letter after the dash).
      const quoted = /'(-[^'\s]+)'/.exec(error.message)?.[1]
      // Cut as a quoted value is: `--` and 100 KB of letters are one option to parseArgs.
      return `unknown option ${cutText(quoted ?? option ?? error.message, SHOWN_VALUE_MAX)} (see --help)`
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const long = /--[a-z][\w-]*/.exec(error.message)?.[0] ?? option
      return error.message.includes('does not take')
        ? `${long} takes no value (see --help)`
        : `${long} needs a value (see --help)`
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      // Quoted as the other commands quote theirs: parseArgs' words hold it raw, controls included.
      const argument = /^Unexpected argument '([\s\S]*)'\. This command/.exec(error.message)?.[1]
      if (argument !== undefined)
        return `unexpected argument ${toQuotedValue(argument)} (see --help)`
      break
    }
  }
  return `${error.message.split('\n')[0]} (see --help)`
}

/**
 * `--seed -3` becomes `--seed=-3`, and `-p -1` `--port=-1`, so the value is judged as a number
 * rather than read as a flag (node:util's parseArgs takes a value that starts with `-` for a flag
 * of its own); so do `-.5` and `-Infinity`, which are numbers too.
 */
export function attachNegativeValues(
  argv: readonly string[],
  options: Readonly<Record<string, { readonly type: string; readonly short?: string }>>,
): string[] {
  const shorts = new Map(
    Object.entries(options).flatMap(([name, { short }]) => (short ? [[`-${short}`, name]] : [])),
  )
  const result: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const name = arg.startsWith('--') ? arg.slice(2) : shorts.get(arg)
    const next = argv[i + 1]
    if (
      name !== undefined &&
      options[name]?.type === 'string' &&
      next !== undefined &&
      /^-(?:\.?\d|Infinity$)/.test(next)
    ) {
      result.push(`--${name}=${next}`)
      i++
    } else {
      result.push(arg)
    }
  }
  return result
}

/**
 * Refuses an empty path given to a flag marked `file: 'written'`: no file has that name, and
 * writing it would only fail later with an answer about some folder.
 */
export function refuseEmptyPaths(
  values: Readonly<Record<string, unknown>>,
  options: Readonly<Record<string, { readonly type: string; readonly file?: string }>>,
): void {
  const empty = Object.keys(options).find(
    (name) => options[name]!.file === 'written' && values[name] === '',
  )
  if (empty !== undefined) throw new UsageError(`--${empty} is empty: give it a file name`)
}
