// src/mocks/browser.ts: the taxonomy API answered in the browser by a service worker.
import { setupWorker } from 'msw/browser'
import { createHandlers } from 'taxonomy-mock/msw'

export const worker = setupWorker(...createHandlers({ seed: 42, size: 'small' }))
