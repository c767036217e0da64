import { replayKind } from './replay.js'

replayKind('unauthorized')
