import { FixtureError } from '../core/fixture-error.js'
import type { Taxonomy } from '../core/store.js'
import { adminError, adminJson, invalidPatchAnswer } from './admin-answers.js'
import type { AdminCommand } from './admin-commands.js'
import type { ServedDataset } from './dataset.js'
import { createHar } from './har.js'
import { journalPartOf, type JournalPart } from './journal-part.js'
import type { MockAnswer } from './responses.js'
import type { RateLimitReading } from './rate-limit.js'
import { ScenarioState } from './scenario-state.js'
import { createSessionData, type SessionData } from './session-data.js'
import type { SessionStore, Step } from './session-store.js'
import { DEFAULT_SESSION, type Session, type SessionRegistry } from './sessions.js'

/** What the data commands need of the resolver: the data a patch applies to, and how to name it. */
export interface AdminData {
  base(): Taxonomy
  describe(data: SessionData | undefined): ServedDataset
  /**
   * A session's data as its requests are answered now: applied again to data replaced since
   * (`--watch`), or dropped if it no longer applies, as its next request would.
   */
  current(session: Session): SessionData | undefined
}

/**
 * A session's journal as the admin API reads it: by default the one this process holds; a server
 * of several processes gathers every process's part.
 */
export type JournalReader = (
  session: string,
  own: JournalPart | undefined,
) => JournalPart | undefined | Promise<JournalPart | undefined>

/**
 * A request's step of a scenario held in this process: a request without a key accepted takes
 * none at a step that applies only after the key.
 */
export function takeStep(
  state: ScenarioState,
  partition: string | undefined,
  authorized: boolean,
  quota?: RateLimitReading,
): Step {
  return authorized || state.phase === 'before-key' ? state.take(partition, quota) : undefined
}

/**
 * The sessions of one process, in its {@link SessionRegistry}: the store of a server of one
 * process, and the base of a server of several's stores, which hold each process's own copy
 * here and override where the processes share (`apply`, `step`, `current`).
 */
export class MemorySessionStore implements SessionStore {
  constructor(
    readonly registry: SessionRegistry,
    readonly adminData: AdminData,
    readonly readJournal: JournalReader = (_, own) => own,
  ) {}

  get default(): Session {
    return this.registry.default
  }

  find(id: string): Session | undefined {
    return this.registry.find(id)
  }

  take(id: string): Session {
    return this.registry.get(id)
  }

  current(_id: string): undefined | Promise<MockAnswer | undefined> {
    return undefined
  }

  step(
    _session: Session,
    state: ScenarioState,
    partition: string | undefined,
    authorized: boolean,
  ): ReturnType<SessionStore['step']> {
    return takeStep(state, partition, authorized)
  }

  apply(command: AdminCommand): MockAnswer | Promise<MockAnswer> {
    return this.applyHere(command)
  }

  /**
   * Applies a command to this process's copy of the sessions alone. `held`: a patch or scenario
   * the shared store accepted, which this process holds past its journals (a patch within its
   * limits on patches).
   */
  applyHere(command: AdminCommand, held = false): MockAnswer | Promise<MockAnswer> {
    const { registry: sessions } = this
    const { session } = command
    // Reading or clearing a session that does not exist makes none (nor pushes another out).
    switch (command.op) {
      case 'setScenario': {
        const state = new ScenarioState(command.scenario)
        if (command.endsAt !== undefined) state.endAt(command.endsAt - performance.timeOrigin)
        // `held`: one the shared store accepted, held past this process's journals as a patch is.
        const refusal = held ? undefined : sessions.refuseScenario(sessions.find(session), state)
        if (refusal !== undefined)
          return adminError(
            'payloadTooLarge',
            `Request body too large: ${refusal}; delete some (DELETE /__admin/sessions/{id})`,
          )
        sessions.get(session).scenario = state
        return adminJson({ session, scenario: command.scenario })
      }
      case 'readScenario':
        return adminJson({ session, scenario: liveScenario(sessions.find(session)?.scenario) })
      case 'clearScenario': {
        const found = sessions.find(session)
        if (found) found.scenario = undefined
        return adminJson({ session, scenario: null })
      }
      case 'setData':
        return this.#setData(session, command.patch, held)
      case 'readData': {
        const found = sessions.find(session)
        return adminJson(this.#describeData(session, found && this.adminData.current(found)))
      }
      case 'clearData': {
        const found = sessions.find(session)
        if (found) sessions.setData(found, undefined)
        return adminJson(this.#describeData(session, undefined))
      }
      case 'readJournal':
        return this.#journalOf(session).then((part) =>
          adminJson(part?.answered.map(({ entry }) => entry) ?? []),
        )
      case 'readHar':
        return this.#journalOf(session).then((part) =>
          adminJson(
            createHar(part?.answered ?? [], part?.startedAt ?? Date.now(), command.origin, session),
          ),
        )
      case 'clearJournal':
        sessions.find(session)?.clearRequests()
        return adminJson([])
      case 'readSession':
        return this.#journalOf(session).then((part) =>
          adminJson({
            session,
            scenario: liveScenario(sessions.find(session)?.scenario),
            requests: part?.answered.length ?? 0,
          }),
        )
      case 'createSession':
        // Made afresh, and there before the app's first request: a request refused for its key
        // is journaled only in a session that exists (keyless clients make none).
        sessions.delete(session)
        sessions.get(session)
        return adminJson({ session, scenario: null, requests: 0 })
      case 'deleteSession':
        // Its scenario and journal are gone; the next request starts afresh.
        sessions.delete(session)
        return adminJson({ session, scenario: null, requests: 0 })
    }
  }

  /**
   * The sessions' state as the commands that make it again, in order: each session, then its
   * scenario and data. What a process that starts later applies before it serves. A scenario
   * ends when this one does (its `ttl` is not started again); one whose `ttl` ran out is left
   * out, and the default session's is cleared then (the process's own `scenario` option would
   * otherwise start afresh).
   */
  snapshot(): AdminCommand[] {
    const commands: AdminCommand[] = []
    for (const { id: session, scenario, data } of this.registry.all()) {
      // The session itself first: one with neither scenario nor data is there too, so a request
      // refused for its key is journaled in it, as in the other processes. The default always is.
      if (session !== DEFAULT_SESSION) commands.push({ op: 'createSession', session })
      if (scenario && !scenario.expired) commands.push(scenarioCommand(session, scenario))
      else if (session === DEFAULT_SESSION) commands.push({ op: 'clearScenario', session })
      if (data) commands.push({ op: 'setData', session, patch: data.patch })
    }
    return commands
  }

  async #journalOf(session: string): Promise<JournalPart | undefined> {
    return this.readJournal(session, journalPartOf(this.registry.find(session)))
  }

  /** A session's data as the data calls answer it: its patch, its changes, which data answers. */
  #describeData(session: string, data: SessionData | undefined) {
    return {
      session,
      patch: data?.patch ?? null,
      changes: data?.changes ?? null,
      dataset: this.adminData.describe(data),
    }
  }

  /** Sets a patch as the session's data; a bad patch changes nothing. */
  #setData(session: string, patch: unknown, held: boolean): MockAnswer {
    let data: SessionData
    try {
      data = createSessionData(this.adminData.base(), patch)
    } catch (cause) {
      if (!(cause instanceof FixtureError)) throw cause
      return invalidPatchAnswer(cause)
    }
    // Checked before the session is made: a refused patch makes none, nor pushes another out.
    const refusal =
      this.registry.refuseData(this.registry.find(session), data, held) ??
      this.registry.setData(this.registry.get(session), data, held)
    if (refusal !== undefined) {
      return adminError(
        'payloadTooLarge',
        `Request body too large: ${refusal}; delete some (DELETE /__admin/sessions/{id}/data)`,
      )
    }
    return adminJson(this.#describeData(session, data))
  }
}

/** A session's scenario as the admin API shows it: `null` once its `ttl` has run out. */
function liveScenario(state: ScenarioState | undefined) {
  return state === undefined || state.expired ? null : state.scenario
}

/**
 * The command that sets a scenario in use again elsewhere, ending when this one ends (by a clock
 * every process reads alike).
 */
export function scenarioCommand(session: string, state: ScenarioState): AdminCommand {
  const { scenario, endsAt } = state
  return endsAt === Number.POSITIVE_INFINITY
    ? { op: 'setScenario', session, scenario }
    : { op: 'setScenario', session, scenario, endsAt: performance.timeOrigin + endsAt }
}
