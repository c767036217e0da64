import { expect, it } from 'vitest'
import { FixtureError } from '../../src/core/fixture-error.js'
import { createFixtureBuilder, parseFixture } from '../../src/core/fixture.js'
import { createTaxonomy } from '../../src/core/generate.js'
import { loadTaxonomy } from '../../src/core/load.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { toFixtureJson } from '../../src/core/serialize.js'
import { LEVELS } from '../../src/core/types.js'
import { cloneFixture, countingHoles, readFixture } from '../helpers/fixtures.js'

function problemsOf(value: unknown): string[] {
  try {
    parseFixture(value)
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError)
    return (error as FixtureError).issues.map((issue) => `${issue.path}: ${issue.message}`)
  }
  throw new Error('expected the fixture to be rejected')
}

/** Breaks one thing in the minimal fixture and names the exact problem expected. */
const BROKEN: [string, (f: Record<string, any>) => void, string][] = [
  [
    'a wrong format tag',
    (f) => (f.format = 'taxonomy-mock/v0'),
    'format: expected "taxonomy-mock/v1" or "taxonomy-mock/v1.1"; received "taxonomy-mock/v0" (string)',
  ],
  [
    'a missing format tag',
    (f) => delete f.format,
    'format: expected "taxonomy-mock/v1" or "taxonomy-mock/v1.1"; received nothing (the field is missing)',
  ],
  [
    'a bad seed',
    (f) => (f.seed = -1),
    'seed: expected a non-negative integer or null; received -1 (number)',
  ],
  ['an unknown root field', (f) => (f.extra = 1), 'extra: unknown field'],
  [
    'an unknown root field whose name would break the line',
    (f) => (f['evil\nline\u001b[31m'] = 1),
    '["evil\\nline\\u001b[31m"]: unknown field',
  ],
  [
    'a level that is not an array',
    (f) => (f.topics = {}),
    'topics: expected an array; received an object',
  ],
  [
    'a missing level',
    (f) => delete f.domains,
    'domains: expected an array; received nothing (the field is missing)',
  ],
  [
    'a record that is not an object',
    (f) => f.topics.push('x'),
    'topics[1]: expected an object; received "x" (string)',
  ],
  [
    'an unknown record field',
    (f) => (f.domains[0].parent_id = 'x'),
    'domains[0].parent_id: unknown field',
  ],
  [
    'an unknown record field whose name would break the line',
    (f) => (f.domains[0]['a b\r\n'] = 'x'),
    'domains[0]["a b\\r\\n"]: unknown field',
  ],
  [
    'a missing id',
    (f) => delete f.topics[0].id,
    'topics[0].id: expected a string; received nothing (the field is missing)',
  ],
  [
    'an id that is not a UUID',
    (f) => (f.topics[0].id = 'topic-1'),
    'topics[0].id: "topic-1" is not a UUID',
  ],
  [
    'a mistyped name',
    (f) => (f.disciplines[0].name = 7),
    'disciplines[0].name: expected a string; received 7 (number)',
  ],
  [
    'an empty name',
    (f) => (f.disciplines[0].name = '  '),
    'disciplines[0].name: must not be empty',
  ],
  [
    'an overlong name',
    (f) => (f.domains[0].name = 'x'.repeat(501)),
    'domains[0].name: must be at most 500 characters; has 501',
  ],
  [
    'an overlong name of emoji, counted in characters',
    (f) => (f.domains[0].name = '😀'.repeat(501)),
    'domains[0].name: must be at most 500 characters; has 501',
  ],
  [
    'a bad slug',
    (f) => (f.sub_disciplines[0].slug = 'Bad Slug'),
    'sub_disciplines[0].slug: "Bad Slug" is not a slug (lowercase letters and digits, words joined by - or _, at most 200 characters)',
  ],
  [
    'a bad slug of emoji, cut between two characters rather than in one',
    (f) => (f.sub_disciplines[0].slug = `a${'🧬'.repeat(50)}`),
    `sub_disciplines[0].slug: "a${'🧬'.repeat(39)}…" is not a slug (lowercase letters and digits, words joined by - or _, at most 200 characters)`,
  ],
  [
    'a wrong format tag of emoji, cut between two characters',
    (f) => (f.format = `a${'🧬'.repeat(50)}`),
    `format: expected "taxonomy-mock/v1" or "taxonomy-mock/v1.1"; received "a${'🧬'.repeat(29)}" (string)`,
  ],
  [
    'a missing description',
    (f) => delete f.domains[0].description,
    'domains[0].description: expected a string; received nothing (the field is missing)',
  ],
  [
    'a null domain description in a v1 file',
    (f) => (f.domains[0].description = null),
    'domains[0].description: null (not known) needs format "taxonomy-mock/v1.1"',
  ],
  [
    'a null description below the domains, even in v1.1',
    (f) => ((f.format = 'taxonomy-mock/v1.1'), (f.topics[0].description = null)),
    'topics[0].description: expected a string; received null',
  ],
  [
    'a missing parent list',
    (f) => delete f.disciplines[0].domain_ids,
    'disciplines[0].domain_ids: expected an array of domain ids; received nothing (the field is missing)',
  ],
  [
    'a record with no parent',
    (f) => (f.topics[0].sub_discipline_ids = []),
    'topics[0].sub_discipline_ids: must name at least one sub-discipline: every record has a parent',
  ],
  [
    'a parent id that is not a string',
    (f) => (f.sub_disciplines[0].discipline_ids = [5]),
    'sub_disciplines[0].discipline_ids[0]: expected a string; received 5 (number)',
  ],
  [
    'a dangling parent link',
    (f) => f.disciplines[0].domain_ids.push('00000000-0000-4000-8000-000000000000'),
    'disciplines[0].domain_ids[1]: no domain has id "00000000-0000-4000-8000-000000000000"',
  ],
  [
    'a duplicate parent link',
    (f) => f.disciplines[0].domain_ids.push(f.domains[0].id),
    'disciplines[0].domain_ids[1]: duplicate of disciplines[0].domain_ids[0]',
  ],
  [
    'a duplicate id',
    (f) => f.domains.push({ ...f.domains[0], slug: 'other' }),
    `domains[1].id: "${cloneFixture().domains[0].id}" is already the id of domains[0]`,
  ],
  [
    'a duplicate slug',
    (f) => f.domains.push({ ...f.domains[0], id: '11111111-1111-4111-8111-111111111111' }),
    `domains[1].slug: "${cloneFixture().domains[0].slug}" is already the slug of domains[0]`,
  ],
]

it.each(BROKEN)('rejects %s with its JSON path', (_, breakIt, expected) => {
  const fixture = cloneFixture()
  breakIt(fixture)
  expect(problemsOf(fixture)).toEqual([expected])
})

/** The problems `createFixtureBuilder` finds in a fixture's records, each added as it comes. */
function problemsBuilt(fixture: Record<string, any>): string[] {
  const builder = createFixtureBuilder({ format: fixture.format, seed: fixture.seed })
  for (const level of LEVELS) for (const record of fixture[level]) builder.add(level, record)
  return problemsFinishing(builder)
}

/** The problems `builder.finish()` reports, as `path: message` lines; none for a fixture it makes. */
function problemsFinishing(builder: ReturnType<typeof createFixtureBuilder>): string[] {
  try {
    builder.finish()
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError)
    return (error as FixtureError).issues.map((issue) => `${issue.path}: ${issue.message}`)
  }
  return []
}

// What a builder is given: records, level by level (never a level that is not an array, a hole,
// or a field beside the levels).
const BROKEN_RECORDS = BROKEN.filter(([, breakIt]) => {
  const fixture = cloneFixture()
  breakIt(fixture)
  return (
    Object.keys(fixture).every((key) => key === 'format' || key === 'seed' || key in fixture) &&
    Object.keys(fixture).length === 2 + LEVELS.length &&
    LEVELS.every(
      (level) =>
        Array.isArray(fixture[level]) &&
        fixture[level].every((record: unknown) => typeof record === 'object' && record !== null),
    )
  )
})

it.each(BROKEN_RECORDS)(
  'finds %s, records made one by one, exactly as parseFixture finds it (createFixtureBuilder)',
  (_, breakIt, expected) => {
    const fixture = cloneFixture()
    breakIt(fixture)
    expect(problemsBuilt(fixture)).toEqual([expected])
  },
)

it('builds, record by record, the fixture parseFixture gives, its records frozen in place', () => {
  const fixture = createTaxonomy({ seed: 3, size: 'small' }).toFixture()
  const copy = JSON.parse(JSON.stringify(fixture)) as Record<string, any>
  const builder = createFixtureBuilder({ format: copy.format, seed: copy.seed })
  for (const level of LEVELS)
    for (const record of copy[level]) expect(builder.add(level, record)).toBe(record)
  const built = builder.finish()
  expect(built).toEqual(parseFixture(copy))
  expect(
    Object.isFrozen(built.topics[0]) && Object.isFrozen(built.topics[0]!.sub_discipline_ids),
  ).toBe(true)
})

/**
 * The problems of a builder given the topics proven unique, added one by one or, reversed, all at
 * once with their order (`addInOrder`).
 */
function problemsWithTopics(fixture: Record<string, any>, inOrder: boolean): string[] {
  const builder = createFixtureBuilder({
    format: fixture.format,
    seed: fixture.seed,
    provenUnique: ['topics'],
  })
  for (const level of LEVELS) {
    if (level !== 'topics' || !inOrder) {
      for (const record of fixture[level]) builder.add(level, record)
      continue
    }
    const topics = fixture.topics.slice().reverse()
    builder.addInOrder(
      'topics',
      topics,
      Array.from(topics, (_, index) => topics.length - 1 - index),
    )
  }
  return problemsFinishing(builder)
}

it.each(BROKEN_RECORDS)(
  'finds %s, a level added at once in an order, exactly as added one by one (addInOrder)',
  (_, breakIt) => {
    const fixture = cloneFixture()
    breakIt(fixture)
    const oneByOne = problemsWithTopics(structuredClone(fixture), false)
    expect(problemsWithTopics(fixture, true)).toEqual(oneByOne)
  },
)

it('adds a level at once in its order: the fixture parseFixture gives (addInOrder)', () => {
  const copy = JSON.parse(
    JSON.stringify(createTaxonomy({ seed: 3, size: 'small' }).toFixture()),
  ) as Record<string, any>
  const builder = createFixtureBuilder({
    format: copy.format,
    seed: copy.seed,
    provenUnique: ['topics'],
  })
  for (const level of LEVELS) {
    if (level !== 'topics') for (const record of copy[level]) builder.add(level, record)
  }
  // Shuffled by a fixed stride: each index once.
  const order = Array.from(copy.topics, (_, index) => (index * 7) % copy.topics.length)
  expect(new Set(order).size).toBe(copy.topics.length)
  const shuffled: unknown[] = []
  order.forEach((at, index) => (shuffled[at] = copy.topics[index]))
  builder.addInOrder('topics', shuffled as any[], order)
  expect(builder.finish()).toEqual(parseFixture(copy))
})

it('takes a name of 500 characters that are 1000 UTF-16 units (emoji), as JSON Schema counts', () => {
  const fixture = cloneFixture()
  fixture.domains[0].name = '😀'.repeat(500)
  expect(parseFixture(fixture).domains[0]!.name).toHaveLength(1000)
})

it('reports each duplicate in a long parent list', () => {
  const fixture = cloneFixture()
  fixture.disciplines[0].domain_ids = Array.from({ length: 10 }, () => fixture.domains[0].id)
  expect(problemsOf(fixture)).toEqual(
    Array.from(
      { length: 9 },
      (_, n) => `disciplines[0].domain_ids[${n + 1}]: duplicate of disciplines[0].domain_ids[0]`,
    ),
  )
})

it('reports a duplicate or unknown parent last in a list of eight and of nine alike', () => {
  // Eight is the longest list the quick look passes without the full checks: both sides of it.
  for (const length of [8, 9]) {
    const fixture = cloneFixture()
    const extra = Array.from({ length }, (_, n) => ({
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      name: `Extra ${n}`,
      slug: `extra-${n}`,
      description: 'A domain to be a parent.',
    }))
    fixture.domains.push(...extra)
    const ids = extra.map((domain) => domain.id)
    fixture.disciplines[0].domain_ids = ids
    expect(parseFixture(fixture).disciplines[0]!.domain_ids).toEqual(ids)
    fixture.disciplines[0].domain_ids = [...ids.slice(0, -1), ids[0]]
    expect(problemsOf(fixture), `${length}, a duplicate`).toEqual([
      `disciplines[0].domain_ids[${length - 1}]: duplicate of disciplines[0].domain_ids[0]`,
    ])
    fixture.disciplines[0].domain_ids = [...ids.slice(0, -1), 'not-a-domain']
    expect(problemsOf(fixture), `${length}, an unknown`).toEqual([
      `disciplines[0].domain_ids[${length - 1}]: no domain has id "not-a-domain"`,
    ])
  }
})

it('rejects sparse arrays (from code): a hole is no record and no parent id', () => {
  const fixture = cloneFixture()
  fixture.topics.length += 1
  fixture.disciplines[0].domain_ids = [fixture.domains[0].id, , fixture.domains[0].id]
  expect(problemsOf(fixture)).toEqual([
    'disciplines[0].domain_ids[1]: expected a string; received nothing (a hole in the array)',
    'disciplines[0].domain_ids[2]: duplicate of disciplines[0].domain_ids[0]',
    `topics[${fixture.topics.length - 1}]: expected an object; received nothing (a hole in the array)`,
  ])
})

it('counts the holes of a huge sparse array at once, not one by one', () => {
  const holes = countingHoles(1e8)
  const problems = problemsOf({ ...cloneFixture(), topics: holes.array })
  expect(problems[0]).toBe('topics[0]: expected an object; received nothing (a hole in the array)')
  expect(problems).toHaveLength(100)
  expect(holes.placesRead()).toBeLessThan(100)
})

it('rejects something that is not a fixture object at all', () => {
  expect(problemsOf([])).toEqual(['$: expected a fixture object; received an array'])
  expect(problemsOf(null)).toEqual(['$: expected a fixture object; received null'])
  // A file read without 'utf8': one problem saying so, not one per byte (a megabyte took 1.3 s).
  const bytes = Buffer.from(JSON.stringify(cloneFixture()))
  const asBytes = [
    "$: expected a fixture object or its JSON text; received bytes (read the file with readFileSync(file, 'utf8'))",
  ]
  expect(problemsOf(bytes)).toEqual(asBytes)
  expect(problemsOf(new Uint8Array(bytes).buffer)).toEqual(asBytes)
  expect(() => loadTaxonomy(bytes)).toThrow(
    /^Failed to load fixture: \$: expected a fixture object or its JSON text; received bytes/,
  )
})

it('reports every problem at once, and names the first in its message', () => {
  const fixture = cloneFixture()
  fixture.topics[0].id = 'nope'
  fixture.domains[0].slug = 'NO'
  const error = (() => {
    try {
      parseFixture(fixture)
    } catch (caught) {
      return caught as FixtureError
    }
  })()!
  expect(error.code).toBe('invalid-fixture')
  expect(error.issueCount).toBe(2)
  expect(error.message).toBe(
    'Failed to load fixture: domains[0].slug: "NO" is not a slug (lowercase letters and digits, words joined by - or _, at most 200 characters) (and 1 more problem)',
  )
})

it('reports the committed broken files with their exact messages', () => {
  const cases: [string, string][] = [
    [
      'broken/wrong-format.json',
      'format: expected "taxonomy-mock/v1" or "taxonomy-mock/v1.1"; received "taxonomy-mock/v0" (string)',
    ],
    [
      'broken/dangling-parent.json',
      'disciplines[0].domain_ids[1]: no domain has id "00000000-0000-4000-8000-000000000000"',
    ],
    [
      'broken/orphan-topic.json',
      'topics[0].sub_discipline_ids: must name at least one sub-discipline: every record has a parent',
    ],
    [
      'broken/duplicate-slug.json',
      `sub_disciplines[1].slug: "${cloneFixture().sub_disciplines[0].slug}" is already the slug of sub_disciplines[0]`,
    ],
  ]
  for (const [file, expected] of cases) {
    expect(() => loadTaxonomy(readFixture(file)), file).toThrow(
      `Failed to load fixture: ${expected}`,
    )
  }
})

it('reports text that is not JSON as invalid-json', () => {
  expect(() => loadTaxonomy(readFixture('broken/not-json.json'))).toThrow(
    /^Failed to load fixture: \$: not valid JSON: /,
  )
})

it('says where text is not JSON, by line and column, without quoting the text', () => {
  const cases: [string, string][] = [
    // V8 names no position here, and quotes the text: line breaks and the escape included.
    ['{\n"format":\n \u001b[2Jx', 'unexpected U+001B at line 3, column 2'],
    ['{"a":1\n,\n"b":tru}', "unexpected '}' at line 3, column 8"],
    ['{"a":\n', 'unexpected end of the text at line 2, column 1'],
    // Here it names a position, which becomes a line and a column.
    ['[1,\n2', "expected ',' or ']' after array element at line 2, column 2"],
  ]
  for (const [text, reason] of cases)
    expect(() => loadTaxonomy(text), text).toThrow(
      new FixtureError('invalid-json', [{ path: '$', message: `not valid JSON: ${reason}` }]),
    )
})

it('reports a field given twice in the text, which JSON.parse would keep only the last of', () => {
  const text = readFixture('minimal.json')
  // A second "topics" (two files merged) would drop every topic of the first without a word.
  const merged = text.replace(/\n}\n$/, ',\n  "topics": []\n}\n')
  const name = text.replace('"name": "Humanities",', '"name": "Humanities", "n\\u0061me": "Arts",')
  const message = 'given more than once: JSON keeps only its last value'
  expect(() => loadTaxonomy(merged)).toThrow(
    new FixtureError('invalid-fixture', [{ path: 'topics', message }]),
  )
  expect(() => loadTaxonomy(`\uFEFF${name}`)).toThrow(
    new FixtureError('invalid-fixture', [{ path: 'domains[0].name', message }]),
  )
  // Listed with the file's other problems, first, as `validate` lists them.
  const both = name.replace('"slug": "humanities"', '"slug": "NO"')
  expect(() => loadTaxonomy(both)).toThrow(
    'Failed to load fixture: domains[0].name: given more than once: JSON keeps only its last value (and 1 more problem)',
  )
  // Read without a stack to overflow: a string of millions of escapes, objects a million deep.
  const long = `"x": "${'\\"'.repeat(6_000_000)}", "y": ${'{"a":'.repeat(1_000_000)}1${'}'.repeat(1_000_000)},`
  expect(() => loadTaxonomy(merged.replace('"format"', `${long} "format"`))).toThrow(
    `Failed to load fixture: topics: ${message} (and 2 more problems)`,
  )
  // The same name in two objects, and a value that reads like a field, are no repeat.
  expect(loadTaxonomy(text.replace('"Humanities"', '"\\"name\\": x"')).domains).toHaveLength(1)
  // A string that ends in a backslash of its own ends at the quote after it.
  expect(loadTaxonomy(text.replace('"Humanities"', '"Humanities \\\\"')).domains).toHaveLength(1)
})

it('says where text is not JSON after a string of millions of characters, escapes or not', () => {
  // A 10 MB string (a long description) before a typo overflowed the regular expression's stack.
  for (const part of ['a', '\\"', '\\u00e9']) {
    const string = part.repeat(12_000_000 / part.length)
    const text = `{"x":"${string}", "y": tru}`
    expect(() => loadTaxonomy(text), part).toThrow(
      new FixtureError('invalid-json', [
        { path: '$', message: `not valid JSON: unexpected '}' at line 1, column ${text.length}` },
      ]),
    )
  }
})

it('reads text that starts with a byte-order mark as the text after it', () => {
  const text = readFixture('minimal.json')
  expect(loadTaxonomy(`\uFEFF${text}`).toFixture()).toEqual(loadTaxonomy(text).toFixture())
})

it('loads a hand-written minimal file', () => {
  const taxonomy = loadTaxonomy(readFixture('minimal.json'))
  expect(taxonomy.seed).toBeNull()
  expect(taxonomy.topicsOf(taxonomy.subDisciplines[0]!)).toHaveLength(1)
})

it('loads a recorded v1.1 file, whose domains may have no description, and exports it as v1.1', () => {
  const fixture = cloneFixture()
  fixture.format = 'taxonomy-mock/v1.1'
  fixture.domains[0].description = null
  const taxonomy = loadTaxonomy(fixture)
  expect(taxonomy.domains[0]!.description).toBeNull()
  expect(JSON.parse(toFixtureJson(taxonomy))).toEqual(fixture)
  const patched = patchTaxonomy(taxonomy, {
    topics: [{ id: fixture.topics[0].id, name: 'Renamed' }],
  })
  expect(patched.toFixture().format).toBe('taxonomy-mock/v1.1')
  expect(patched.domains[0]!.description).toBeNull()
})

it('round-trips a generated dataset exactly through the fixture format', () => {
  const generated = createTaxonomy({ seed: 8, size: 'medium' })
  const loaded = loadTaxonomy(toFixtureJson(generated))
  expect(toFixtureJson(loaded)).toBe(toFixtureJson(generated))
  expect(loaded.toFixture()).toEqual(generated.toFixture())
})

it('keeps the committed seed-42 export equal to what the generator makes', () => {
  // Regenerate with: npx taxonomy-mock export --seed 42 --size small --out fixtures/taxonomy-seed-42-small.json
  expect(readFixture('taxonomy-seed-42-small.json')).toBe(
    toFixtureJson(createTaxonomy({ seed: 42, size: 'small' })),
  )
})

it('streams exactly the bytes of JSON.stringify with two-space indents', () => {
  for (const taxonomy of [
    createTaxonomy({ seed: 3, size: 'medium' }),
    createTaxonomy({ seed: 3, size: { disciplines: 1, subDisciplines: 1, topics: 0 } }),
    loadTaxonomy(readFixture('minimal.json')),
  ]) {
    expect(toFixtureJson(taxonomy)).toBe(`${JSON.stringify(taxonomy.toFixture(), null, 2)}\n`)
  }
})
