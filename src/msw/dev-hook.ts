import { formatReceived } from '../core/size.js'
import type { JournalEntry } from '../http/journal.js'
import { parseScenario as checkScenario } from '../http/scenario.js'
import {
  DATA_CHOICES,
  SCENARIO_CHOICES,
  isDataChoice,
  isScenarioChoice,
  type DataChoice,
} from './choices.js'
import type { CreateHandlersOptions } from './handlers.js'
import { createSwitchableMock, type MockState, type SwitchableMock } from './switchable.js'

/** `window.taxonomyMock`: switch the mock from the browser's console while the page runs. */
export interface TaxonomyMockHook {
  /** Answers from now on with `scenario` (and `data`; left out, the current data), fresh journal. */
  use(scenario: MockState['scenario'], data?: MockState['data']): void
  /** Back to the state the page started with (its URL's), with a fresh journal. */
  reset(): void
  /** The requests answered since the last `use` or `reset`, oldest first. */
  journal(): JournalEntry[]
}

declare global {
  // A development page's console reaches the hook as `taxonomyMock`.
  var taxonomyMock: TaxonomyMockHook | undefined
}

const SCENARIO_PARAMETER = 'taxonomy-scenario'
const DATA_PARAMETER = 'taxonomy-data'

/**
 * The state a page's query asks for: `?taxonomy-scenario=` a choice's name or a scenario as
 * JSON, `?taxonomy-data=` a data choice's name. A value that names neither throws, naming it.
 */
function stateFromQuery(search: string): MockState {
  const query = new URLSearchParams(search)
  warnOfNearMisses(query)
  const scenario = onlyValue(query, SCENARIO_PARAMETER)
  const data = onlyValue(query, DATA_PARAMETER)
  return {
    ...(scenario === null ? {} : { scenario: parseScenario(scenario) }),
    ...(data === null ? {} : { data: parseData(data) }),
  }
}

/** A parameter name as a near miss of ours reads: lower case, without `-` and `_`. */
const looseName = (name: string) => name.toLowerCase().replace(/[-_]/g, '')
const LOOSE_NAMES = new Map(
  [SCENARIO_PARAMETER, DATA_PARAMETER].map((name) => [looseName(name), name] as const),
)

/**
 * Warns of a parameter that is one of ours but for case or separators (`?TAXONOMY-SCENARIO=`,
 * `?taxonomy_data=`, `?taxonomyScenario=`): read by no one, it would start the page in the usual
 * state without a word. A warning, not an error: it may be the page's own parameter.
 */
function warnOfNearMisses(query: URLSearchParams): void {
  for (const name of new Set(query.keys())) {
    const meant = LOOSE_NAMES.get(looseName(name))
    if (meant !== undefined && meant !== name)
      console.warn(
        `taxonomy-mock: the query parameter ${formatReceived(name)} is not read; the kit's is ?${meant}=`,
      )
  }
}

/** A parameter's one value: a second one (a link joined twice) would be dropped unseen. */
function onlyValue(query: URLSearchParams, name: string): string | null {
  const values = query.getAll(name)
  if (values.length > 1)
    throw new TypeError(`?${name}= is given ${values.length} times; give it once`)
  return values[0] ?? null
}

function parseScenario(value: string): MockState['scenario'] {
  if (isScenarioChoice(value)) return value
  if (value.trimStart().startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      parsed = undefined
    }
    // Checked here, so that a bad field is reported as the URL's, not as an option's.
    if (parsed !== undefined) {
      try {
        checkScenario(parsed)
        return parsed as MockState['scenario']
      } catch (error) {
        throw new TypeError(
          `?${SCENARIO_PARAMETER}= holds no valid scenario: ${(error as Error).message}`,
        )
      }
    }
  }
  throw new TypeError(
    `?${SCENARIO_PARAMETER}= must be one of ${Object.keys(SCENARIO_CHOICES).join(', ')} or a scenario as JSON; received ${formatReceived(value)}`,
  )
}

function parseData(value: string): DataChoice {
  if (isDataChoice(value)) return value
  throw new TypeError(
    `?${DATA_PARAMETER}= must be one of ${Object.keys(DATA_CHOICES).join(', ')}; received ${formatReceived(value)}`,
  )
}

/**
 * A switchable kit for a development page's worker: it starts in the state the page's URL asks
 * for (`?taxonomy-scenario=flaky&taxonomy-data=unicode-names`) and sets `window.taxonomyMock`.
 * Import it only in development (a dynamic import behind `import.meta.env.DEV`), so a production
 * build holds none of it.
 *
 * @example
 * const mock = createDevMock({ seed: 42, size: 'small' })
 * export const worker = setupWorker(...mock.handlers)
 */
export function createDevMock(
  options: CreateHandlersOptions = {},
  search: string = globalThis.location?.search ?? '',
): SwitchableMock {
  const mock = createSwitchableMock(options)
  const started = stateFromQuery(search)
  // The state's data, kept for the hook: one state for the hook and the mock returned.
  let data = started.data
  const use = (state: MockState) => {
    mock.use(state)
    data = state.data
  }
  const reset = () => use(started)
  reset()
  globalThis.taxonomyMock = {
    // Data left out stays as it is (and as the options say when never chosen).
    use: (scenario, newData = data) =>
      use(newData === undefined ? { scenario } : { scenario, data: newData }),
    reset,
    journal: () => mock.journal(),
  }
  // Its reset, too, goes back to the URL's state, as the hook's does.
  return { ...mock, use, reset }
}
