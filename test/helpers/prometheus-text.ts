/**
 * A strict parser of the Prometheus text exposition format 0.0.4, as its specification
 * (prometheus/docs, "Exposition formats") and the reference parser (prometheus/common `expfmt`)
 * read it. It throws, naming the line, on anything they would refuse, and on what a scraper would
 * take but then store wrongly: a family split in two, a repeated series, a histogram whose buckets
 * are not cumulative or lack `+Inf`, or whose `+Inf` bucket differs from its `_count`.
 */

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'

interface Sample {
  /** The sample's own name: `x_bucket`, `x_sum`, `x_count` for a histogram `x`. */
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface MetricFamily {
  readonly name: string
  readonly type: MetricType
  readonly help: string | undefined
  readonly samples: readonly Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
// Go's strconv.ParseFloat, as the reference parser reads values: decimal, exponent, Inf, NaN.
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Inf|inf|NaN)$/
const TIMESTAMP = /^-?\d+$/

interface Building {
  name: string
  type: MetricType
  help: string | undefined
  samples: Sample[]
  /** Whether a sample has been read: TYPE and HELP must come before. */
  sampled: boolean
}

/** Parses a whole exposition, by family name; throws `Error("line N: …")` on any fault. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the last line must end with \\n')
  const families = new Map<string, Building>()
  const closed = new Set<string>()
  const seen = new Set<string>()
  let current: Building | undefined
  const lines = text.split('\n')
  lines.pop()

  const open = (name: string, at: number): Building => {
    if (current?.name === name) return current
    if (closed.has(name) || families.has(name))
      throw new Error(`line ${at}: the family ${name} is split: its lines must be together`)
    if (current !== undefined) closed.add(current.name)
    current = { name, type: 'untyped', help: undefined, samples: [], sampled: false }
    families.set(name, current)
    return current
  }

  lines.forEach((line, index) => {
    const at = index + 1
    if (line === '') return
    if (line.startsWith('#')) {
      const match = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line)
      if (match === null) return // a comment
      const [, keyword, name, rest = ''] = match
      if (!METRIC_NAME.test(name!)) throw new Error(`line ${at}: bad metric name ${name}`)
      const family = open(name!, at)
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new Error(`line ${at}: a second HELP for ${name}`)
        family.help = unescapeHelp(rest, at)
      } else {
        if (family.sampled) throw new Error(`line ${at}: TYPE after samples of ${name}`)
        if (family.type !== 'untyped' || !TYPES.has(rest))
          throw new Error(`line ${at}: bad or second TYPE for ${name}: ${rest}`)
        family.type = rest as MetricType
      }
      return
    }
    const sample = parseSample(line, at)
    const family = open(familyOf(sample.name, current), at)
    checkSuffix(family, sample, at)
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`
    if (seen.has(key)) throw new Error(`line ${at}: a repeated series ${key}`)
    seen.add(key)
    family.sampled = true
    family.samples.push(sample)
  })
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family)
  return new Map(
    [...families].map(([name, { type, help, samples }]) => [name, { name, type, help, samples }]),
  )
}

/** The family a sample belongs to: a histogram's or summary's suffixed names belong to it. */
function familyOf(name: string, current: Building | undefined): string {
  if (current === undefined || name === current.name) return name
  const suffixes =
    current.type === 'histogram'
      ? ['_bucket', '_sum', '_count']
      : current.type === 'summary'
        ? ['_sum', '_count']
        : []
  return suffixes.some((suffix) => name === current.name + suffix) ? current.name : name
}

function checkSuffix(family: Building, sample: Sample, at: number): void {
  if (family.type === 'histogram') {
    if (sample.name === family.name)
      throw new Error(`line ${at}: a histogram has only _bucket, _sum and _count samples`)
    if (sample.name.endsWith('_bucket') && sample.labels.le === undefined)
      throw new Error(`line ${at}: a bucket without le`)
  }
  if (family.type === 'counter' && !(sample.value >= 0))
    throw new Error(`line ${at}: a counter below 0 or NaN`)
}

/** Per series (labels but `le`): buckets cumulative, `+Inf` present and equal to `_count`. */
function checkHistogram(family: Building): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    let entry = series.get(key)
    if (entry === undefined) series.set(key, (entry = { buckets: [] }))
    if (sample.name.endsWith('_bucket')) {
      if (!FLOAT.test(le!)) throw new Error(`${family.name}: bad le "${le}"`)
      entry.buckets.push([parseFloat(le!.replace(/inf/i, 'Infinity')), sample.value])
    } else if (sample.name.endsWith('_count')) entry.count = sample.value
    else entry.sum = sample.value
  }
  for (const [key, { buckets, count, sum }] of series) {
    buckets.sort((a, b) => a[0] - b[0])
    const last = buckets.at(-1)
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY)
      throw new Error(`${family.name}${key}: no +Inf bucket`)
    buckets.forEach(([, value], i) => {
      if (i > 0 && value < buckets[i - 1]![1])
        throw new Error(`${family.name}${key}: buckets are not cumulative`)
    })
    if (count === undefined || sum === undefined)
      throw new Error(`${family.name}${key}: no _count or no _sum`)
    if (count !== last[1]) throw new Error(`${family.name}${key}: _count differs from +Inf`)
  }
}

/** `name{label="value",…} value [timestamp]`, each part as the grammar has it. */
function parseSample(line: string, at: number): Sample {
  const fail = (why: string): never => {
    throw new Error(`line ${at}: ${why}: ${line}`)
  }
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)
  if (nameMatch === null) return fail('no metric name')
  const name = nameMatch[0]
  let i = name.length
  const labels: Record<string, string> = {}
  if (line[i] === '{') {
    i++
    for (;;) {
      if (line[i] === '}') break
      const labelMatch = /^[^=]*/.exec(line.slice(i))!
      const label = labelMatch[0]
      if (!LABEL_NAME.test(label) || label.startsWith('__')) fail(`bad label name "${label}"`)
      if (label in labels) fail(`label ${label} twice`)
      i += label.length
      if (line[i] !== '=' || line[i + 1] !== '"') fail('a label value must follow ="')
      i += 2
      let value = ''
      while (line[i] !== '"') {
        if (i >= line.length) fail('unterminated label value')
        if (line[i] === '\\') {
          const escaped = line[i + 1]
          if (escaped === '\\' || escaped === '"') value += escaped
          else if (escaped === 'n') value += '\n'
          else fail(`bad escape \\${escaped}`)
          i += 2
        } else value += line[i++]
      }
      labels[label] = value
      i++
      if (line[i] === ',') i++
      else if (line[i] !== '}') fail('labels must be separated by ,')
    }
    i++
  }
  const rest = line.slice(i)
  if (!/^[ \t]/.test(rest)) fail('a blank must separate the value')
  const [value, timestamp, extra] = rest.trim().split(/[ \t]+/)
  if (value === undefined || !FLOAT.test(value)) fail(`bad value "${value}"`)
  if (timestamp !== undefined && !TIMESTAMP.test(timestamp)) fail(`bad timestamp "${timestamp}"`)
  if (extra !== undefined) fail('text after the timestamp')
  return { name, labels, value: parseFloat(value!.replace(/inf/i, 'Infinity')) }
}

/** A HELP text: `\\` and `\n` are its only escapes. */
function unescapeHelp(text: string, at: number): string {
  return text.replace(/\\(.?)/g, (_, escaped: string) => {
    if (escaped === '\\') return '\\'
    if (escaped === 'n') return '\n'
    throw new Error(`line ${at}: bad escape in HELP`)
  })
}
