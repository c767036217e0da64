import { isAdminWrite, type AdminCommand } from '../../http/admin-commands.js'
import { MemorySessionStore, takeStep } from '../../http/memory-store.js'
import { USUAL_EFFECT } from '../../http/scenario-state.js'
import type { MockAnswer } from '../../http/responses.js'
import type { Step } from '../../http/session-store.js'
import type { StepQuestion } from './worker-store.js'

/**
 * The `--workers` primary's sessions: its own, in memory, and a copy in every worker. A write is
 * applied here, then sent as its command to every worker, and answered once they all applied it,
 * so the next request finds it in force whichever worker it reaches. The scenarios' counts are
 * this process's: a worker's request takes its step here (`stepFor`).
 */
export class PrimarySessionStore extends MemorySessionStore {
  constructor(
    memory: ConstructorParameters<typeof MemorySessionStore>,
    readonly toWorkers: (command: AdminCommand) => Promise<unknown>,
  ) {
    super(...memory)
  }

  override async apply(command: AdminCommand): Promise<MockAnswer> {
    const answer = await this.applyHere(command)
    if (isAdminWrite(command) && answer.status === 200) await this.toWorkers(command)
    return answer
  }

  /** A worker's request's step of its session's scenario (none left: the usual answer). */
  stepFor({ session, partition, authorized }: StepQuestion): Step {
    const state = this.find(session)?.scenario
    if (state === undefined || state.exhausted) return USUAL_EFFECT
    return takeStep(state, partition, authorized)
  }
}
