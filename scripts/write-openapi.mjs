// Build step: writes dist/openapi.json from the one source, src/http/openapi.ts.
import { writeFileSync } from 'node:fs'
import { OPENAPI_DOCUMENT } from '../dist/http/openapi.js'

writeFileSync(new URL('../dist/openapi.json', import.meta.url), `${JSON.stringify(OPENAPI_DOCUMENT, null, 2)}\n`)
