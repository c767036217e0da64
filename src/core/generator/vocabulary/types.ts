/** The words one discipline brings: its real sub-fields and the subjects its topics are about. */
export interface DisciplineWords {
  readonly name: string
  /** Completes "the study of …" in a description. */
  readonly study: string
  /** Real sub-disciplines, used before any modifier combinations. */
  readonly subDisciplines: readonly string[]
  /** Subjects that topic names are built around. */
  readonly subjects: readonly string[]
}

/** The words one domain brings: its disciplines and the modifiers that form further sub-fields. */
export interface DomainWords {
  readonly name: string
  /** Completes "… covers …" in a description. */
  readonly scope: string
  /** Which topic aspects suit its fields: `mixed` uses every aspect. */
  readonly style: 'empirical' | 'humanistic' | 'mixed'
  /** Prefixes that turn a sub-discipline into a narrower one ("Computational" + "Cosmology"). */
  readonly modifiers: readonly string[]
  readonly disciplines: readonly DisciplineWords[]
}

/** Shorthand that keeps the word lists one line per field. */
export function discipline(
  name: string,
  study: string,
  subDisciplines: readonly string[],
  subjects: readonly string[],
): DisciplineWords {
  return { name, study, subDisciplines, subjects }
}
