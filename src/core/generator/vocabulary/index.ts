import { AGRICULTURE } from './agriculture.js'
import { ARTS } from './arts.js'
import { ENGINEERING } from './engineering.js'
import { FORMAL_SCIENCES } from './formal-sciences.js'
import { HUMANITIES } from './humanities.js'
import { MEDICINE } from './medicine.js'
import { NATURAL_SCIENCES } from './natural-sciences.js'
import { SOCIAL_SCIENCES } from './social-sciences.js'
import type { DomainWords } from './types.js'

export type { DisciplineWords, DomainWords } from './types.js'
export { ASPECTS, CONTEXTS, type AspectFit } from './topics.js'

/** Every domain the generator knows, in a fixed order that seeds then shuffle. */
export const DOMAINS: readonly DomainWords[] = [
  NATURAL_SCIENCES,
  FORMAL_SCIENCES,
  ENGINEERING,
  MEDICINE,
  AGRICULTURE,
  SOCIAL_SCIENCES,
  HUMANITIES,
  ARTS,
]
