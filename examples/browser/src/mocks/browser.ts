// src/mocks/browser.ts: the taxonomy API answered in the browser by a service worker. In the state
// the page's URL asks for (?taxonomy-scenario=, ?taxonomy-data=), switched by window.taxonomyMock.
import { setupWorker } from 'msw/browser'
import { createDevMock } from 'taxonomy-mock/msw'

export const worker = setupWorker(...createDevMock({ seed: 42, size: 'small' }).handlers)
