import type { ScenarioState } from '../http/scenario-state.js'

/**
 * Scenarios selected for requests by helper handlers, until the kit's handler behind them takes
 * them. MSW runs a request's handlers in order with one `requestId`; a helper that matches adds
 * its scenario and lets the request fall through, so the resolver alone decides the answer.
 */
const selected = new Map<string, ScenarioState[]>()
/** Requests no kit handler took (another origin, say) are forgotten past this many. */
const MAX_PENDING = 1_000

/** Adds a scenario to those selected for a request, after any selected before it. */
export function select(requestId: string, state: ScenarioState): void {
  const list = selected.get(requestId)
  if (list) {
    list.push(state)
    return
  }
  if (selected.size >= MAX_PENDING) selected.delete(selected.keys().next().value!)
  selected.set(requestId, [state])
}

/** The scenarios selected for a request, in order; forgets them. */
export function takeSelected(requestId: string): readonly ScenarioState[] | undefined {
  const list = selected.get(requestId)
  if (list) selected.delete(requestId)
  return list
}
