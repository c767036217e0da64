// `import 'taxonomy-mock/matchers/jest'` in a setup file (`setupFilesAfterEnv`): adds the matchers
// to Jest's global `expect` and to the types of `@jest/globals` and of `@types/jest`. It imports
// nothing from Jest at run time: Jest puts `expect` in scope of every setup and test file. The
// reference loads the `expect` package's types (the `Matchers` of `@jest/globals`) that the
// declaration below adds to; an empty type import would not survive into the .d.ts.
/// <reference types="expect" preserve="true" />
import { matchers } from './matchers.js'
import type { TaxonomyMatchers } from './types.js'

const jestExpect = (globalThis as { expect?: { extend?: (matchers: object) => void } }).expect
if (typeof jestExpect?.extend !== 'function')
  throw new TypeError(
    "taxonomy-mock/matchers/jest extends Jest's global `expect`, which is not defined here: import it from a Jest setup file, or call `expect.extend(matchers)` yourself",
  )
jestExpect.extend(matchers)

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends TaxonomyMatchers<R, T> {}
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends TaxonomyMatchers<R, T> {}
  }
}
