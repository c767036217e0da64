import type { Random } from '../core/random.js'
import { MAX_DELAY } from './delay.js'
import { parsePreferOptions } from './kind-options.js'
import { kindSpec } from './kinds.js'
import { SCENARIO_KINDS, type ScenarioKind } from './scenario.js'
import { ScenarioState } from './scenario-state.js'

/** The kinds Prism's `Prefer: code=…` asks for, by code (the rows' `preferCode`), in table order. */
export const PRISM_CODES: ReadonlyMap<string, ScenarioKind> = new Map(
  SCENARIO_KINDS.flatMap((kind) => {
    const code = kindSpec(kind).preferCode
    return code === undefined ? [] : [[code, kind] as const]
  }),
)

/** Prism's `Prefer: code=…`, so tests written for Prism keep working; 200 asks for the usual answer. */
const CODES = new Map<string, ScenarioKind | undefined>([['200', undefined], ...PRISM_CODES])

/** `Prefer: code=200`: the usual answer for this request, whatever its session's scenario. */
export const USUAL_ANSWER = Symbol('usual answer')

/**
 * Reads the scenario a request asks for in its RFC 7240 `Prefer` header: `scenario=KIND`
 * (or Prism's `code=401|404|500|503`), optionally `slug=…`, `delay=MS` or `delay=MIN-MAX`, and
 * the kind's own options by their rows' `prefer` names (`bytes=N`, `duration=MS`), separated by
 * commas. Preferences it does not know are ignored, as RFC 7240 asks; of one given twice the first
 * counts. `delay=MIN-MAX` draws from `random`, the session's stream, so each
 * request gets its own delay and a run of requests the same series on every run.
 *
 * @returns the scenario for this one request, {@link USUAL_ANSWER} for `code=200`, `undefined`
 *   when it asks for nothing, or a message naming the preference at fault.
 * @example
 * parsePrefer('scenario=unavailable, delay=100-500', session.preferRandom) // ScenarioState
 * parsePrefer('return=minimal') // undefined
 */
export function parsePrefer(
  header: string,
  random?: Random,
): ScenarioState | typeof USUAL_ANSWER | string | undefined {
  const preferences = new Map<string, string>()
  for (const part of header.split(',')) {
    // Parameters after `;` refine a preference; none of ours takes any.
    const [name, ...rest] = part.split(';')[0]!.split('=')
    const key = name!.trim().toLowerCase()
    if (key !== '' && !preferences.has(key)) preferences.set(key, unquote(rest.join('=').trim()))
  }
  const scenario = preferences.get('scenario')
  const code = preferences.get('code')
  const delay = preferences.get('delay')
  const slug = preferences.get('slug')
  const options = parsePreferOptions(preferences)
  if (typeof options === 'string') return options
  if (scenario === undefined && code === undefined && delay === undefined) return undefined

  if (scenario !== undefined && !(SCENARIO_KINDS as readonly string[]).includes(scenario)) {
    return `Prefer scenario must be one of ${SCENARIO_KINDS.join(', ')}; received ${JSON.stringify(scenario.slice(0, 40))}`
  }
  if (code !== undefined && !CODES.has(code)) {
    return `Prefer code must be one of ${[...CODES.keys()].join(', ')}; received ${JSON.stringify(code.slice(0, 40))}`
  }
  const kind = (scenario as ScenarioKind | undefined) ?? CODES.get(code!)
  if (scenario !== undefined && code !== undefined && CODES.get(code) !== kind) {
    return `Prefer scenario=${scenario} and code=${code} ask for different answers; send one`
  }
  let ms: number | [number, number] | undefined
  if (delay !== undefined) {
    const match = /^(\d{1,10})(?:-(\d{1,10}))?$/.exec(delay)
    const min = Number(match?.[1])
    const max = match?.[2] === undefined ? min : Number(match[2])
    if (!match || max < min || max > MAX_DELAY) {
      return `Prefer delay must be milliseconds (300) or a range (100-500); received ${JSON.stringify(delay.slice(0, 40))}`
    }
    ms = match[2] === undefined ? min : [min, max]
  }
  if (kind === undefined && ms === undefined) return USUAL_ANSWER
  if (slug !== undefined && slug === '') return 'Prefer slug must not be empty'
  try {
    return new ScenarioState(
      {
        ...(kind !== undefined ? { kind } : {}),
        ...(slug !== undefined ? { slug } : {}),
        ...(ms !== undefined ? { delay: ms } : {}),
        ...options,
      },
      random,
      'prefer',
    )
  } catch (error) {
    return `Prefer: ${(error as Error).message}`
  }
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"')
    ? value.slice(1, -1)
    : value
}
