import { replayKind } from './replay.js'

replayKind('unavailable')
