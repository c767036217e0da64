import { replayKind } from './replay.js'

replayKind('server-error')
