/**
 * The spec's record and summary shapes (§2), field by field and in the spec's order: the one table
 * the OpenAPI schemas and the contract checks read, and that a type test holds the exported record
 * types to.
 */

/**
 * What a field holds. `uuid`: a string the spec calls a UUID (or implies one); `id`: a string the
 * spec does not call a UUID (the mock's are UUIDs); `slug` and `text`: strings; `count`: a
 * non-negative integer; `{ items }`: an array of that summary.
 */
export type FieldKind = 'uuid' | 'id' | 'text' | 'slug' | 'count' | { readonly items: SummaryName }

export const SHAPES = {
  /** §2.2 */
  DomainSummary: { id: 'uuid', name: 'text', slug: 'slug' },
  /** §2.5 */
  DisciplineSummary: { id: 'uuid', name: 'text', slug: 'slug' },
  /** §2.3 */
  SubDisciplineSummary: {
    id: 'uuid',
    name: 'text',
    slug: 'slug',
    description: 'text',
    topics_count: 'count',
  },
  /** §2.6 */
  TopicSummary: { id: 'id', name: 'text', slug: 'slug', description: 'text' },
  /** §2.1 */
  Discipline: {
    id: 'uuid',
    name: 'text',
    slug: 'slug',
    description: 'text',
    domains: { items: 'DomainSummary' },
    sub_disciplines_count: 'count',
    sub_disciplines: { items: 'SubDisciplineSummary' },
  },
  /** §2.4 */
  SubDiscipline: {
    id: 'uuid',
    name: 'text',
    slug: 'slug',
    description: 'text',
    disciplines: { items: 'DisciplineSummary' },
    topics_count: 'count',
    topics: { items: 'TopicSummary' },
  },
} as const satisfies Readonly<Record<string, Readonly<Record<string, FieldKind>>>>

export type ShapeName = keyof typeof SHAPES
export type SummaryName =
  'DomainSummary' | 'DisciplineSummary' | 'SubDisciplineSummary' | 'TopicSummary'
export type RecordShapeName = Exclude<ShapeName, SummaryName>

/** The wire type a shape describes: what `DisciplineRecord` and the others must equal. */
export type WireOf<Name extends ShapeName> = {
  readonly [Field in keyof (typeof SHAPES)[Name]]: WireField<(typeof SHAPES)[Name][Field]>
}

type WireField<Kind> = Kind extends 'count'
  ? number
  : Kind extends { readonly items: infer Items extends SummaryName }
    ? readonly WireOf<Items>[]
    : string
