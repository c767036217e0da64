// Two builds of the server side by side, as the "Standalone server" rows compare ours with the bare
// server: both served at once on core 0 (throughput), then one at a time (CPU per request), fresh
// processes every four rounds. `npx tsx bench/duet-builds.ts A B [rounds]`, where A and B are each
// a copy of the package (its bin/, dist/ and package.json, node_modules found from there) or
// `bare`, the reference server sending the repo's answer. What a change to the hot path is worth
// shows here, where rounds of one server alone vary by ±10% (bench/README.md).
import { join, resolve } from 'node:path'
import { useRunTempFolder } from '../test/setup/temp-folder.js'
import {
  compare,
  firstDisciplineSlug,
  formatRatio,
  referenceContender,
  sampleAnswer,
  startPinned,
  type Contender,
} from './server.js'

const [first, second, rounds = '8'] = process.argv.slice(2)
if (first === undefined || second === undefined || !/^[1-9]\d*$/.test(rounds))
  throw new Error('usage: npx tsx bench/duet-builds.ts <copy A | bare> <copy B | bare> [rounds]')
// Its processes' temp folders (the CLI's code cache) go with the run, as a bench's do.
useRunTempFolder()
const path = `/api/v2/disciplines/${await firstDisciplineSlug()}`
const answer = await sampleAnswer(path)

function contender(name: string): Contender {
  if (name === 'bare') return referenceContender(answer)
  const bin = join(resolve(name), 'bin/taxonomy-mock.cjs')
  return { start: () => startPinned([bin, '--port', '0', '--quiet']) }
}

const result = await compare(contender(first), contender(second), path, 64, Number(rounds), 3)
console.log(
  `${first} vs ${second} (64 connections, ${rounds} rounds): throughput together ${formatRatio(result.together)} ` +
    `(${result.rps}); CPU per request ${formatRatio(result.cpuRatio)} (${result.cpu}); ${result.load}`,
)
