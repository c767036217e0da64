// Build step: a `.d.cts` twin of every `dist/**/*.d.ts`, for the `require` condition of `exports`.
// A CommonJS consumer (a `.cts` file, `module: nodenext`) then reads declarations whose own
// `import ... from 'msw'` resolves through `require` too, so it meets the same copy of msw's types
// as its own `import { setupServer } from 'msw/node'` (msw 2 ships `.d.ts` for require and `.d.mts`
// for import; two copies make `HttpHandler` unassignable to `AnyHandler`). The runtime file stays
// the one ES module: Node 20.19+ requires it, and Jest transforms it (see docs/recipes/jest-commonjs.md).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIST = fileURLToPath(new URL('../dist/', import.meta.url))
// Relative specifiers only: './x.js' becomes './x.cjs', which TypeScript resolves to './x.d.cts'.
// Either quote: TypeScript writes the `import("./x.js")` of an inferred type in double quotes.
const RELATIVE = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*)\.js\2/g

for (const entry of readdirSync(DIST, { recursive: true, encoding: 'utf8' })) {
  if (!entry.endsWith('.d.ts')) continue
  const source = readFileSync(join(DIST, entry), 'utf8')
  writeFileSync(
    join(DIST, entry.replace(/\.d\.ts$/, '.d.cts')),
    source.replace(RELATIVE, '$1$2$3.cjs$2'),
  )
}
