// Checks on the Markdown pages that GitHub renders: which links point nowhere, which tables would not
// render as tables. Small on purpose: GFM's rules for the cases these pages use, nothing more.

/** The page's lines with fenced code blocks blanked out, so nothing inside them counts as Markdown. */
function proseLines(markdown: string): string[] {
  let fenced = false
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line
  })
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function toAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors of a page's headings, numbered as GitHub numbers repeats (`-1`, `-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1]
    if (heading === undefined) continue
    const anchor = toAnchor(heading)
    const count = seen.get(anchor) ?? 0
    seen.set(anchor, count + 1)
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`)
  }
  return anchors
}

/** Every link target outside code: `[text](target)`, without a title. */
export function linksOf(markdown: string): string[] {
  const links: string[] = []
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '')
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push(match[1]!)
  }
  return links
}

/** The cells of a table row: split on pipes not escaped with a backslash (GFM splits inside code spans too). */
function cellsOf(row: string): number {
  const inner = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
  return inner.split(/(?<!\\)\|/).length
}

const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/

/**
 * What would keep a table from rendering as one: a run of `|` rows with no delimiter row under its
 * first (as when a blank line splits a table), or a row whose cell count differs from the header's.
 * Returns one message per problem, with its line number.
 */
export function tableProblems(markdown: string): string[] {
  const problems: string[] = []
  const lines = proseLines(markdown)
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\|/.test(lines[i]!) || (i > 0 && /^\s*\|/.test(lines[i - 1]!))) continue
    let end = i
    while (end + 1 < lines.length && /^\s*\|/.test(lines[end + 1]!)) end++
    if (!DELIMITER_ROW.test(lines[i + 1] ?? '') || i === end) {
      problems.push(
        `line ${i + 1}: rows with no header and delimiter row above them (a blank line inside a table?)`,
      )
      i = end
      continue
    }
    const columns = cellsOf(lines[i]!)
    for (let row = i + 1; row <= end; row++) {
      const cells = cellsOf(lines[row]!)
      if (cells !== columns)
        problems.push(`line ${row + 1}: ${cells} cells in a table of ${columns} columns`)
    }
    i = end
  }
  return problems
}
