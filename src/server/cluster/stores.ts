import { adminError } from '../../http/admin-answers.js'
import { isAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import { MemorySessionStore, scenarioCommand, takeStep } from '../../http/memory-store.js'
import type { MockAnswer } from '../../http/responses.js'
import { reapplySessionData } from '../../http/session-data.js'
import type { Scenario } from '../../http/scenario.js'
import { ScenarioState, USUAL_EFFECT } from '../../http/scenario-state.js'
import type { Step } from '../../http/session-store.js'
import { DEFAULT_SESSION, type Session } from '../../http/sessions.js'
import type { Channel } from './channel.js'

// The two halves of a `--workers` server's sessions: the primary's store, which owns them, and
// each worker's, a copy that asks the primary for what must be counted once.

/**
 * The `--workers` primary's sessions: its own, in memory, and a copy in every worker. A write is
 * applied here, then sent as its command to every worker, and answered once they all applied it,
 * so the next request finds it in force whichever worker it reaches. The scenarios' counts are
 * this process's: a worker's request takes its step here (`stepFor`).
 */
export class PrimarySessionStore extends MemorySessionStore {
  constructor(
    memory: ConstructorParameters<typeof MemorySessionStore>,
    /** Sends a write to every worker; the status each answered it with. */
    readonly toWorkers: (command: AdminCommand) => Promise<readonly number[]>,
  ) {
    super(...memory)
  }

  /** The admin write under way: writes run one at a time, so an undo restores what its own write replaced. */
  #writing: Promise<unknown> = Promise.resolve()

  override apply(command: AdminCommand): Promise<MockAnswer> {
    if (!isAdminWrite(command)) return Promise.resolve(this.applyHere(command))
    const write = this.#writing.then(() => this.#write(command))
    this.#writing = write.catch(() => {})
    return write
  }

  async #write(command: AdminCommand): Promise<MockAnswer> {
    // A patch or scenario a worker refuses (its own memory budget, which its journals fill) is
    // undone everywhere: in force on every process or on none, as its answer says.
    const undo =
      command.op === 'setData'
        ? this.#dataAsItIs(command.session)
        : command.op === 'setScenario'
          ? this.#scenarioAsItIs(command.session)
          : undefined
    const replaced = this.find(command.session)?.scenario
    const answer = await this.applyHere(command)
    if (answer.status !== 200) return answer
    // A scenario's `ttl` runs out in every worker when it does here.
    const state = command.op === 'setScenario' ? this.find(command.session)?.scenario : undefined
    const sent = state ? scenarioCommand(command.session, state) : command
    const refused = (await this.toWorkers(sent)).find((status) => status !== 200)
    if (refused === undefined || undo === undefined) return answer
    // The counts are here: the scenario replaced comes back as it was, not set afresh.
    if (command.op === 'setScenario') this.#putBack(command.session, replaced)
    else await this.applyHere(undo)
    await this.toWorkers(undo)
    return adminError(
      'payloadTooLarge',
      `Request body too large: a worker's memory budget (--memory-budget, per process) has no room for the ${command.op === 'setData' ? 'patch' : 'scenario'}; nothing changed`,
    )
  }

  /** Gives a session back the scenario a refused write replaced, with its counts (`times`, steps, quota). */
  #putBack(session: string, replaced: ScenarioState | undefined): void {
    const found = this.find(session)
    if (found) found.scenario = replaced === undefined || replaced.expired ? undefined : replaced
  }

  /** The write that gives a session back its scenario as it is now (ending when it ends). */
  #scenarioAsItIs(session: string): AdminCommand {
    const state = this.find(session)?.scenario
    return state === undefined || state.expired
      ? { op: 'clearScenario', session }
      : scenarioCommand(session, state)
  }

  /** The write that gives a session back its data as it is now. */
  #dataAsItIs(session: string): AdminCommand {
    const data = this.find(session)?.data
    return data === undefined
      ? { op: 'clearData', session }
      : { op: 'setData', session, patch: data.patch }
  }

  /**
   * The `--data` file was loaded again: a session's patch that no longer applies to the new data
   * is cleared here and in every worker at once. Left to each process, it would be dropped only
   * where a request of the session next came, and kept elsewhere: shown by the admin API, and
   * served again by a worker that never served it meanwhile once the file changed back.
   */
  async dropPatchesThatNoLongerApply(): Promise<void> {
    const base = this.adminData.base()
    const stale: string[] = []
    for (const { id, data } of this.registry.all())
      if (data !== undefined && data.base !== base && reapplySessionData(data, base) === undefined)
        stale.push(id)
    for (const session of stale) await this.apply({ op: 'clearData', session })
  }

  /**
   * A worker's request's step of its session's scenario (none left, or ended: the usual answer),
   * or of its `Prefer` header's, drawn from the session's one stream here.
   */
  stepFor({ session, partition, authorized, prefer }: StepQuestion): Step {
    if (prefer !== undefined) {
      const state = new ScenarioState(prefer, this.take(session).preferRandom, 'prefer')
      return takeStep(state, partition, authorized)
    }
    const state = this.find(session)?.scenario
    if (state === undefined || state.exhausted || state.expired) return USUAL_EFFECT
    return takeStep(state, partition, authorized)
  }
}

/** What a worker asks the primary for a request's step of its session's scenario. */
export interface StepQuestion {
  readonly session: string
  readonly partition: string | undefined
  readonly authorized: boolean
  /** A `Prefer` header's scenario that draws per request (a delay range, a cut's share). */
  readonly prefer?: Scenario
}

/**
 * A `--workers` worker's sessions: a copy of the primary's, which every admin write reaches
 * before it is answered (`applyHere`), so the copy is always current. A request's step of its
 * session's scenario is taken in the primary, which holds the one count (`times`, the `sequence`
 * step, fault draws, the quota's window); an admin call is sent to the primary as its command.
 */
export class WorkerSessionStore extends MemorySessionStore {
  constructor(
    memory: ConstructorParameters<typeof MemorySessionStore>,
    readonly primary: Channel,
  ) {
    super(...memory)
  }

  override step(
    session: Session,
    state: ScenarioState,
    partition: string | undefined,
    authorized: boolean,
  ): Step | Promise<Step> {
    const question: StepQuestion = { session: session.id, partition, authorized }
    if (state === session.scenario) return this.primary.ask<Step>('step', question)
    // A `Prefer` header's scenario is the request's own, but what it draws comes from its
    // session's one stream, in the primary, as in one process (a session this worker does not
    // hold is a request's own too: a request without a key makes none).
    if (state.source !== 'prefer' || !state.drawsPerRequest || this.find(session.id) !== session)
      return takeStep(state, partition, authorized)
    return this.primary.ask<Step>('step', { ...question, prefer: state.scenario })
  }

  override apply(command: AdminCommand): Promise<MockAnswer> {
    return this.primary.ask<MockAnswer>('apply', command)
  }
}

/** The ids of a process's sessions, the default one left out (every process has it). */
export function sessionIdsOf(store: MemorySessionStore): string[] {
  const ids: string[] = []
  for (const { id } of store.registry.all()) if (id !== DEFAULT_SESSION) ids.push(id)
  return ids
}
