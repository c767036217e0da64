import type { Resolver } from '../http/resolver.js'
import type { ScenarioState } from '../http/scenario-state.js'
import type { SessionData } from '../http/session-data.js'

/** A scenario a helper selected for one request, and the kit it is for (`undefined`: any kit). */
interface Selection {
  readonly state: ScenarioState
  readonly kit: Resolver | undefined
}

// MSW hands every handler the same `Request` object, so a helper in front can leave a note on it
// for the kit handler behind. Keyed weakly: a note goes with its request, and no kit is remembered.
const selections = new WeakMap<Request, Selection[]>()
// Patched data `withData` selected, with the kit it is for: the frontmost for a kit wins.
const dataSelections = new WeakMap<Request, { data: SessionData; kit: Resolver }[]>()

/** Notes a helper's scenario on a request, after those of the helpers in front of it. */
export function selectScenarioFor(request: Request, selection: Selection): void {
  const selected = selections.get(request)
  if (selected === undefined) selections.set(request, [selection])
  else selected.push(selection)
}

/**
 * The scenarios the helpers in front selected for a request that a kit answers, frontmost first
 * (the newest `server.use(...)` wins); `undefined` when there are none.
 */
export function scenariosSelectedFor(
  request: Request,
  kit: Resolver,
): readonly ScenarioState[] | undefined {
  const selected = selections.get(request)
  if (selected === undefined) return undefined
  const states = selected.filter((s) => s.kit === undefined || s.kit === kit).map((s) => s.state)
  return states.length > 0 ? states : undefined
}

/** Notes the patched data a kit's `withData` handlers selected for a request. */
export function selectDataFor(request: Request, data: SessionData, kit: Resolver): void {
  const selected = dataSelections.get(request)
  if (selected === undefined) dataSelections.set(request, [{ data, kit }])
  else selected.push({ data, kit })
}

/** The patched data the frontmost `withData` of this kit selected for a request, if any. */
export function dataSelectedFor(request: Request, kit: Resolver): SessionData | undefined {
  return dataSelections.get(request)?.find((selection) => selection.kit === kit)?.data
}
