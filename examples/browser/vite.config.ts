// The recipe's app as `vite build` builds it, with the recipe's plugin; a user's config has
// react() beside it.
import { defineConfig } from 'vite'
import { withoutMswWorker } from './without-msw-worker.js'

export default defineConfig({
  plugins: [withoutMswWorker()],
})
