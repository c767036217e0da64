// Build step: writes dist/openapi.json from the one source, src/http/openapi.ts (bundled in memory:
// dist/ holds only the entry points and their chunks, not one file per module).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const result = await build({
  entryPoints: [fileURLToPath(new URL('../src/http/openapi.ts', import.meta.url))],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
  logLevel: 'warning',
})
const { OPENAPI_DOCUMENT } = await import(
  `data:text/javascript;base64,${Buffer.from(result.outputFiles[0].contents).toString('base64')}`
)

writeFileSync(
  new URL('../dist/openapi.json', import.meta.url),
  `${JSON.stringify(OPENAPI_DOCUMENT, null, 2)}\n`,
)
