import { toDisciplineRecord } from '../../src/core/records.js'
import { AUTH, taxonomy } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { replayKind } from './replay.js'

// The usual answer, late; the key check still applies.
replayKind('delay', [
  {
    name: 'delay answers as usual after the delay, and 401 without a key',
    scenario: { kind: 'delay', delay: 20 },
    requests: [{ path: D, headers: AUTH }, { path: D }],
    outcomes: [
      { status: 200, body: JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!)) },
      { status: 401, body: '{"error":"Invalid or missing API key"}' },
    ],
  },
  {
    name: 'a lognormal delay { median, p99 } answers as usual too',
    scenario: { kind: 'delay', delay: { median: 5, p99: 30 } },
    requests: [{ path: D, headers: AUTH }, { path: D }],
    outcomes: [
      { status: 200, body: JSON.stringify(toDisciplineRecord(taxonomy, taxonomy.disciplines[0]!)) },
      { status: 401, body: '{"error":"Invalid or missing API key"}' },
    ],
  },
])
