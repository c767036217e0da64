import type { AdminCommand } from './admin-commands.js'
import type { MockAnswer } from './responses.js'
import type { ScenarioEffect, ScenarioState } from './scenario-state.js'
import type { Session } from './sessions.js'

/**
 * A request's step of a scenario, as a store hands it out: the effect, `undefined` when the step
 * at the request's position applies only once the key is checked and the request has no key
 * accepted (it takes none), or, from a shared store, the answer in place of the request's (503:
 * the store cannot be reached) or `AGAIN` (the session changed meanwhile: answer it afresh).
 */
export type Step = ScenarioEffect | undefined

/** What a shared store answers when the session's state changed under the request. */
export const AGAIN = Symbol('again')

export type SharedStep = Step | MockAnswer | typeof AGAIN

/**
 * Where sessions live, as the admin router and the resolver see them: neither knows how many
 * processes share them. The admin router parses a call once into an {@link AdminCommand} and
 * applies it here; the resolver reads a session's state and takes a request's position (its
 * scenario's `times`, `sequence` step, fault draws and rate-limit window) from here, and hands the
 * session the request's journal entry.
 *
 * Implementations: `MemorySessionStore` (one process, `memory-store.ts`), the `--workers`
 * primary's, which applies every write to its workers too (`server/cluster/stores.ts`), and
 * a `--store` replica's, whose sessions live in Redis (`server/replica/redis-store.ts`).
 */
export interface SessionStore {
  /** The session of requests that name none. */
  readonly default: Session
  /** A session's state if it exists: neither made nor marked used. */
  find(id: string): Session | undefined
  /**
   * The session a request is answered in, made if new and marked used. Its scenario state is the
   * request's position: the resolver takes the next step of it and journals into the session.
   */
  take(id: string): Session
  /**
   * What a request in session `id` waits for before it is answered: `undefined` when this
   * process's copy of the session is current (always, in memory), else the store's fetch of it,
   * which settles with `undefined` once current or the answer in place of the request's.
   */
  current(id: string): undefined | Promise<MockAnswer | undefined>
  /**
   * Takes the request's step of `state` (`partition`: the quota's, per key), at once in memory;
   * a shared store takes the position of its session's own scenario there, in one atomic step.
   */
  step(
    session: Session,
    state: ScenarioState,
    partition: string | undefined,
    authorized: boolean,
  ): Step | Promise<SharedStep>
  /** Applies an admin command and answers what the admin API answers for it. */
  apply(command: AdminCommand): MockAnswer | Promise<MockAnswer>
}
