// Build step, after scripts/bundle.mjs: writes dist/openapi.json as the built package serves it at
// /openapi.json with the default options, so the file and the served document cannot differ.
import { writeFileSync } from 'node:fs'
import { createFetchHandler } from '../dist/http/index.js'

const response = await createFetchHandler()(new Request('http://localhost/openapi.json'))
if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`)

writeFileSync(
  new URL('../dist/openapi.json', import.meta.url),
  `${JSON.stringify(await response.json(), null, 2)}\n`,
)
