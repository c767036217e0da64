import type { AdminCommand } from '../../http/admin-commands.js'
import { MemorySessionStore, takeStep } from '../../http/memory-store.js'
import type { MockAnswer } from '../../http/responses.js'
import type { ScenarioState } from '../../http/scenario-state.js'
import type { Step } from '../../http/session-store.js'
import type { Session } from '../../http/sessions.js'
import type { Channel } from './channel.js'

/** What a worker asks the primary for a request's step of its session's scenario. */
export interface StepQuestion {
  readonly session: string
  readonly partition: string | undefined
  readonly authorized: boolean
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
    // A `Prefer` header's scenario counts in this process alone.
    if (state !== session.scenario) return takeStep(state, partition, authorized)
    const question: StepQuestion = { session: session.id, partition, authorized }
    return this.primary.ask<Step>('step', question)
  }

  override apply(command: AdminCommand): Promise<MockAnswer> {
    return this.primary.ask<MockAnswer>('apply', command)
  }
}
