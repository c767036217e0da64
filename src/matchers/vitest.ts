// `import 'taxonomy-mock/matchers/vitest'` in a setup file: adds the matchers to Vitest's `expect`
// and to its types. Only this file imports vitest, so the matchers stay usable under Jest. The
// reference keeps vitest's types loaded from the .d.ts, which drops the value import.
/// <reference types="vitest" preserve="true" />
import { expect } from 'vitest'
import { matchers } from './matchers.js'
import type { TaxonomyAsymmetricMatchers, TaxonomyMatchers } from './types.js'

expect.extend(matchers)

declare module 'vitest' {
  // Type parameters as Vitest declares them, so the declarations merge.
  interface Assertion<T = any> extends TaxonomyMatchers<void, T> {}
  interface AsymmetricMatchersContaining extends TaxonomyAsymmetricMatchers {}
}
