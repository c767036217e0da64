// `npm run bench`: every performance target of the project, measured in one run, as a table.
import { benchBundle } from './bundle.js'
import { benchGenerate } from './generate.js'
import { runSections } from './lib.js'
import { benchMsw } from './msw.js'
import { benchPeers } from './peers/index.js'
import { benchServer } from './server.js'
import { benchSessions } from './sessions.js'
import { benchStartup } from './startup.js'
import { benchTestFile } from './test-file.js'

const sections = [
  ['Generator', () => benchGenerate()],
  ['Standalone server', () => benchServer()],
  ['Sessions and scenarios', () => benchSessions()],
  ['MSW handlers', () => benchMsw()],
  ['Start-up', () => benchStartup()],
  ['Test file cost', () => benchTestFile()],
  ['Browser bundle', () => benchBundle()],
  // Installs five tools and takes minutes: only `npm run bench -- peers`.
  ['Peers', () => benchPeers(), { onDemand: true }],
] as const

await runSections('taxonomy-mock bench', sections, process.argv[2])
