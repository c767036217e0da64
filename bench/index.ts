// `npm run bench`: every performance target of the project, measured in one run, as a table.
import { benchAnswerCache } from './answer-cache.js'
import { benchBrowse } from './browse.js'
import { benchBundle } from './bundle.js'
import { benchContract } from './contract.js'
import { benchContractCpu } from './contract-cpu.js'
import { benchFirstAnswerSizes } from './first-answer.js'
import { benchGenerate } from './generate.js'
import { benchHttps } from './https.js'
import { benchImage } from './image.js'
import { benchJournal } from './journal.js'
import { benchKeyScan } from './key-scan.js'
import { runSections } from './lib.js'
import { benchMsw } from './msw.js'
import { benchPeers } from './peers/index.js'
import { benchReplicas } from './replicas.js'
import { benchRequestLog, benchServer } from './server.js'
import { benchSessionData } from './session-data.js'
import { benchSessions } from './sessions.js'
import { benchBinary, benchFirstAnswers, benchStartup } from './startup.js'
import { benchTestFile } from './test-file.js'
import { benchUpstream } from './upstream.js'
import { benchWorkers } from './workers.js'

const sections = [
  ['Generator', () => benchGenerate()],
  ['Standalone server', () => benchServer()],
  ['Default request log', () => benchRequestLog()],
  ['HTTPS server', () => benchHttps()],
  ['Workers', () => benchWorkers()],
  ['Upstream relay', () => benchUpstream()],
  ['Replicas through Redis', () => benchReplicas()],
  ['Sessions and scenarios', () => benchSessions()],
  ['Per-session data', () => benchSessionData()],
  ['Answer cache', () => benchAnswerCache()],
  ['Request journal', () => benchJournal()],
  ['Browse pages', () => benchBrowse()],
  ['MSW handlers', () => benchMsw()],
  ['Start-up', () => benchStartup()],
  ['First requests', () => benchFirstAnswers()],
  ['First answer at every size', () => benchFirstAnswerSizes()],
  ['Single executable', () => benchBinary()],
  ['Test file cost', () => benchTestFile()],
  ['Browser bundle', () => benchBundle()],
  ['Verify and record', () => benchContract()],
  ['Key scan', () => benchKeyScan()],
  ['Verify and record at large, in CPU', () => benchContractCpu()],
  ['Container image', () => benchImage()],
  // Installs five tools and takes minutes: only `npm run bench -- peers`.
  ['Peers', () => benchPeers(), { onDemand: true }],
] as const

// `npm run bench -- [section] [--runs N]`: one section by (part of) its title; N whole passes.
const args = process.argv.slice(2)
const runsAt = args.indexOf('--runs')
const runs = runsAt === -1 ? 1 : Number(args.splice(runsAt, 2)[1])
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs takes a whole number of runs, 1 or more')
  process.exitCode = 2
} else {
  await runSections('taxonomy-mock bench', sections, args[0], runs)
}
