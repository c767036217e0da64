import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import type { Check } from './lib.js'

/** `taxonomy-mock/msw` as a browser bundle would carry it: minified, gzipped, msw itself excluded. */
export async function benchBundle(): Promise<Check[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../dist/msw/index.js', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: ['msw', 'msw/*'],
    write: false,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.contents
  const gzipKb = gzipSync(code, { level: 9 }).byteLength / 1024
  return [
    {
      name: 'browser bundle of taxonomy-mock/msw (minified + gzip, msw excluded)',
      value: `${gzipKb.toFixed(1)} KB (${(code.byteLength / 1024).toFixed(0)} KB minified)`,
      target: '<= 100 KB',
      ok: gzipKb <= 100,
      figure: gzipKb,
    },
  ]
}
