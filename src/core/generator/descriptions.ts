/**
 * One readable English sentence per record, from a few templates picked by the seeded generator.
 * The caller draws the template (`random.nextInt(DESCRIPTION_TEMPLATES)`) and keeps the number, so
 * a record's text can be written when it is first asked for, long after its draws.
 */

/** How many templates a domain, discipline or sub-discipline description is drawn from. */
export const DESCRIPTION_TEMPLATES = 3

export function describeDomain(template: number, name: string, scope: string): string {
  switch (template) {
    case 0:
      return `${name} covers ${scope}.`
    case 1:
      return `The disciplines of ${name} share an interest in ${scope}.`
    default:
      return `${name} brings together fields concerned with ${scope}.`
  }
}

export function describeDiscipline(template: number, name: string, study: string): string {
  switch (template) {
    case 0:
      return `${name} is the study of ${study}.`
    case 1:
      return `${name} investigates ${study}, drawing on both theory and evidence.`
    default:
      return `Scholars in ${name} examine ${study}.`
  }
}

/** `first` and `second` are drawn subjects (`random.pick`), `template` drawn after them. */
export function describeSubDiscipline(
  template: number,
  first: string,
  second: string,
  name: string,
  disciplineName: string,
): string {
  const focus = first === second ? first : `${first} and ${second}`
  switch (template) {
    case 0:
      return `${name} is a branch of ${disciplineName} that focuses on ${focus}.`
    case 1:
      return `Within ${disciplineName}, ${name} deals with questions such as ${focus}.`
    default:
      return `${name} applies the methods of ${disciplineName} to ${focus}.`
  }
}

/** How many templates a topic description is drawn from: the draw is `random.nextInt(TOPIC_TEMPLATES)`. */
export const TOPIC_TEMPLATES = 4

/**
 * Creates the topic describer of one sub-discipline: each template's text around the topic name
 * is built once, so a description costs two concatenations (a million topics share the rest). The
 * caller draws the template, so the topics can be counted without describing them.
 */
export function createTopicDescriber(
  subDisciplineName: string,
): (template: number, topicName: string) => string {
  const templates: readonly (readonly [string, string])[] = [
    ['Research on ', ` within ${subDisciplineName}.`],
    [`An area of ${subDisciplineName} that deals with `, '.'],
    [`Work in ${subDisciplineName} on `, ', from methods to findings.'],
    ['', `, a recurring theme in ${subDisciplineName}.`],
  ]
  return (template, topicName) => {
    const [before, after] = templates[template]!
    return before + topicName + after
  }
}
