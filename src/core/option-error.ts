/**
 * A bad option: a `TypeError` that also names the option (`maxReadBytes`, `scenario.faults.rate`),
 * so a caller with names of its own, such as the CLI with its flags, can say which one was wrong.
 * The message quotes option names in backticks: "`delay` must be ...; received -5 (number)".
 */
export class OptionError extends TypeError {
  /** The option at fault, as the options object spells it (a dotted path for a nested one). */
  declare readonly option: string
  /** The message after the option's name: what it accepts and what arrived. */
  declare readonly requirement: string

  constructor(option: string, requirement: string) {
    super(`\`${option}\` ${requirement}`)
    // Not enumerable, as `message` is not: the error equals a TypeError of the same message.
    Object.defineProperties(this, {
      option: { value: option },
      requirement: { value: requirement },
    })
  }
}
