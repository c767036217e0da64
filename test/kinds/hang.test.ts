import { AUTH } from '../cases/cases.js'
import { D } from '../cases/scenario-cases.js'
import { replayKind } from './replay.js'

// No answer at all: each client gives up (after 300 ms) and sees what a dropped connection gives.
replayKind('hang', [
  {
    name: 'hang sends nothing until the client gives up, with or without a key',
    scenario: 'hang',
    requests: [{ path: D, headers: AUTH }, { path: D }],
    outcomes: [{ fault: 'network-error' }, { fault: 'network-error' }],
  },
])
