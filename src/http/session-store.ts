import type { AdminCommand } from './admin-commands.js'
import type { MockAnswer } from './responses.js'
import type { Session } from './sessions.js'

/**
 * Where sessions live, as the admin router and the resolver see them: neither knows how many
 * processes share them. The admin router parses a call once into an {@link AdminCommand} and
 * applies it here; the resolver reads a session's state and takes a request's position (its
 * scenario's `times`, `sequence` step, fault draws and rate-limit window) from here, and hands the
 * session the request's journal entry.
 *
 * Implementations: `MemorySessionStore` (one process, `memory-store.ts`), and the `--workers`
 * primary's, which applies every write to its workers too (`server/cluster/primary-store.ts`).
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
  /** Applies an admin command and answers what the admin API answers for it. */
  apply(command: AdminCommand): MockAnswer | Promise<MockAnswer>
}
