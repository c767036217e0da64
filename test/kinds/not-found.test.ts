import { replayKind } from './replay.js'

replayKind('not-found')
