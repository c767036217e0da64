// without-msw-worker.ts: a Vite plugin: `vite build` copies public/ without MSW's worker script.
import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Plugin } from 'vite'

/**
 * Vite copies public/ into every build as it is; the worker script `msw init` put there is for the
 * dev server only.
 */
export function withoutMswWorker(): Plugin {
  let outDir = ''
  return {
    name: 'without-msw-worker',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir)
    },
    // Vite has copied public/ by the time it writes the bundle.
    async writeBundle() {
      await rm(resolve(outDir, 'mockServiceWorker.js'), { force: true })
    },
  }
}
