import { replayKind } from './replay.js'

replayKind('network-error')
