import { quote } from './field-name.js'
import { recordCountOf } from './generate.js'
import { parsePatchShape } from './patch-shape.js'
import { createIssueList, parseRecord, type IssueList } from './fixture.js'
import {
  createPatchedRecord,
  findPatchTarget,
  mergePatch,
  type RecordPatch,
} from './patch-records.js'
import type { Taxonomy, TaxonomyView } from './store.js'
import {
  LEVELS,
  type Fixture,
  type FixtureDiscipline,
  type FixtureDomain,
  type FixtureRecord,
  type FixtureSubDiscipline,
  type FixtureTopic,
  type Level,
} from './types.js'

/** How many records of each level a patch adds and replaces. */
export type PatchChanges = {
  readonly [level in Level]: { readonly added: number; readonly replaced: number }
}

/** Each level's parent level and link field, and the level of its children. */
const LINKS = {
  domains: { field: undefined, parent: undefined, child: 'disciplines' },
  disciplines: { field: 'domain_ids', parent: 'domains', child: 'sub_disciplines' },
  sub_disciplines: { field: 'discipline_ids', parent: 'disciplines', child: 'topics' },
  topics: { field: 'sub_discipline_ids', parent: 'sub_disciplines', child: undefined },
} as const satisfies Record<
  Level,
  { field: string | undefined; parent: Level | undefined; child: Level | undefined }
>

const NOUNS: Readonly<Record<Level, string>> = {
  domains: 'domain',
  disciplines: 'discipline',
  sub_disciplines: 'sub-discipline',
  topics: 'topic',
}

/** A level of the base in dataset order, with where each id and slug sits. */
interface LevelIndex {
  readonly records: readonly FixtureRecord[]
  readonly byId: ReadonlyMap<unknown, number>
  readonly bySlug: ReadonlyMap<unknown, number>
}

// Built once per base and level, on the first patch that needs it, and shared by every overlay.
const indexes = new WeakMap<Taxonomy, Partial<Record<Level, LevelIndex>>>()

function indexOf(base: Taxonomy, level: Level): LevelIndex {
  let levels = indexes.get(base)
  if (levels === undefined) indexes.set(base, (levels = {}))
  let index = levels[level]
  if (index === undefined) {
    const records = recordsOf(base, level)
    index = {
      records,
      byId: new Map(records.map((record, i) => [record.id, i])),
      bySlug: new Map(records.map((record, i) => [record.slug, i])),
    }
    levels[level] = index
  }
  return index
}

function recordsOf(base: TaxonomyView, level: Level): readonly FixtureRecord[] {
  switch (level) {
    case 'domains':
      return base.domains
    case 'disciplines':
      return base.disciplines
    case 'sub_disciplines':
      return base.subDisciplines
    default:
      return base.topics
  }
}

/** One level of an overlay: the records the patch touched and where they sit. */
interface LevelOverlay {
  /** Final records by id and slug (replaced and added). */
  readonly byId: Map<string, FixtureRecord>
  readonly bySlug: Map<string, FixtureRecord>
  /** Each touched record's place in dataset order: its base index, or after the base for an added one. */
  readonly position: Map<FixtureRecord, number>
  /** Base records the patch replaced, hidden from lookups, each with its replacement. */
  readonly replaced: Map<FixtureRecord, FixtureRecord>
  /** The path in the patch of the (last) patch record that made each touched record. */
  readonly paths: Map<FixtureRecord, string>
  /** Touched records in dataset order. */
  readonly touched: FixtureRecord[]
  /** Parent ids whose child lists the patch changes. */
  readonly affectedParents: Set<string>
  /** Touched records by each parent id they link to, in dataset order. */
  readonly touchedByParent: Map<string, FixtureRecord[]>
  readonly added: number
}

/**
 * A patch applied on top of a taxonomy without copying it: only the records the patch touches and
 * the child lists of their parents are rebuilt; every other answer reads the base. It answers
 * exactly what `patchTaxonomy(base, patch)` would, and refuses exactly what it would refuse, with
 * every problem at its path in the patch (`disciplines[0].domain_ids[1]`).
 *
 * @example
 * const overlay = createOverlay(base, { disciplines: [{ name: 'Tiny', domain_ids: [base.domains[0]!.id] }] })
 * overlay.findDiscipline('tiny')
 */
export class TaxonomyOverlay implements TaxonomyView {
  readonly seed = null
  readonly changes: PatchChanges
  readonly #base: Taxonomy
  readonly #levels: Readonly<Record<Level, LevelOverlay>>
  readonly #children = new Map<string, readonly FixtureRecord[]>()
  // Each level merged on its own first use: listing the domains builds no topic of a generated base.
  readonly #merged: Partial<Record<Level, readonly FixtureRecord[]>> = {}
  #fixture: Fixture | undefined

  /** @internal Use {@link createOverlay}, which validates. */
  constructor(base: Taxonomy, levels: Readonly<Record<Level, LevelOverlay>>) {
    this.#base = base
    this.#levels = levels
    this.changes = Object.freeze(
      Object.fromEntries(
        LEVELS.map((level) => [
          level,
          Object.freeze({
            added: levels[level].added,
            replaced: levels[level].touched.length - levels[level].added,
          }),
        ]),
      ),
    ) as PatchChanges
  }

  get format(): Fixture['format'] {
    return this.#base.format
  }

  get domains(): readonly FixtureDomain[] {
    return this.#level('domains') as readonly FixtureDomain[]
  }

  get disciplines(): readonly FixtureDiscipline[] {
    return this.#level('disciplines') as readonly FixtureDiscipline[]
  }

  get subDisciplines(): readonly FixtureSubDiscipline[] {
    return this.#level('sub_disciplines') as readonly FixtureSubDiscipline[]
  }

  get topics(): readonly FixtureTopic[] {
    return this.#level('topics') as readonly FixtureTopic[]
  }

  /**
   * How many topics it has, without listing them: the base's and the ones the patch adds (a patch
   * removes none). A generated base's count comes from its counts, so none of its topics is built.
   */
  topicCount(): number {
    return recordCountOf(this.#base, 'topics') + this.changes.topics.added
  }

  findDiscipline(slug: string): FixtureDiscipline | undefined {
    return this.#findBySlug('disciplines', slug, this.#base.findDiscipline(slug)) as never
  }

  findSubDiscipline(slug: string): FixtureSubDiscipline | undefined {
    return this.#findBySlug('sub_disciplines', slug, this.#base.findSubDiscipline(slug)) as never
  }

  domainsOf(discipline: FixtureDiscipline): readonly FixtureDomain[] {
    return discipline.domain_ids.map((id) => this.#findById('domains', id)!)
  }

  disciplinesOf(domain: FixtureDomain): readonly FixtureDiscipline[] {
    return this.#childrenOf('disciplines', domain.id) as readonly FixtureDiscipline[]
  }

  subDisciplinesOf(discipline: FixtureDiscipline): readonly FixtureSubDiscipline[] {
    return this.#childrenOf('sub_disciplines', discipline.id) as readonly FixtureSubDiscipline[]
  }

  parentDisciplinesOf(sub: FixtureSubDiscipline): readonly FixtureDiscipline[] {
    return sub.discipline_ids.map((id) => this.#findById('disciplines', id) as FixtureDiscipline)
  }

  topicsOf(sub: FixtureSubDiscipline): readonly FixtureTopic[] {
    return this.#childrenOf('topics', sub.id) as readonly FixtureTopic[]
  }

  topicCountOf(sub: FixtureSubDiscipline): number {
    if (this.#levels.topics.affectedParents.has(sub.id)) return this.topicsOf(sub).length
    return this.#base.topicCountOf(sub)
  }

  parentSubDisciplinesOf(topic: FixtureTopic): readonly FixtureSubDiscipline[] {
    return topic.sub_discipline_ids.map(
      (id) => this.#findById('sub_disciplines', id) as FixtureSubDiscipline,
    )
  }

  /** The whole dataset, as `patchTaxonomy` would give it: built on first use. */
  toFixture(): Fixture {
    this.#fixture ??= Object.freeze({
      format: this.#base.format,
      seed: null,
      ...(Object.fromEntries(LEVELS.map((level) => [level, this.#level(level)])) as Pick<
        Fixture,
        Level
      >),
    })
    return this.#fixture
  }

  #level(level: Level): readonly FixtureRecord[] {
    return (this.#merged[level] ??= Object.freeze(this.#mergeLevel(level)))
  }

  #mergeLevel(level: Level): FixtureRecord[] {
    const overlay = this.#levels[level]
    if (overlay.touched.length === 0) return recordsOf(this.#base, level).slice()
    const { records } = indexOf(this.#base, level)
    const result = records.slice()
    for (const record of overlay.touched) result[overlay.position.get(record)!] = record
    return result
  }

  #findBySlug(level: Level, slug: string, inBase: FixtureRecord | undefined) {
    const overlay = this.#levels[level]
    const touched = overlay.bySlug.get(slug)
    if (touched !== undefined) return touched
    return inBase !== undefined && !overlay.replaced.has(inBase) ? inBase : undefined
  }

  #findById(level: Level, id: string): FixtureRecord | undefined {
    const overlay = this.#levels[level]
    const touched = overlay.byId.get(id)
    if (touched !== undefined) return touched
    return hasId(this.#base, level, overlay, id) ? findInBase(this.#base, level, id) : undefined
  }

  /** The children of the parent with this id, in dataset order: the base's list unless the patch changed it. */
  #childrenOf(level: Level, parentId: string): readonly FixtureRecord[] {
    const overlay = this.#levels[level]
    if (!overlay.affectedParents.has(parentId)) return baseChildren(this.#base, level, parentId)
    const key = `${level}:${parentId}`
    let children = this.#children.get(key)
    if (children === undefined) {
      const { byId } = indexOf(this.#base, level)
      const placed: { record: FixtureRecord; at: number }[] = []
      for (const record of baseChildren(this.#base, level, parentId)) {
        if (!overlay.replaced.has(record)) placed.push({ record, at: byId.get(record.id)! })
      }
      for (const record of overlay.touchedByParent.get(parentId) ?? []) {
        placed.push({ record, at: overlay.position.get(record)! })
      }
      children = placed.sort((a, b) => a.at - b.at).map(({ record }) => record)
      this.#children.set(key, children)
    }
    return children
  }
}

/** A base record by id without building an index: the store's own maps. */
function findInBase(base: Taxonomy, level: Level, id: string): FixtureRecord | undefined {
  switch (level) {
    case 'domains':
      return base.domainsOf({ domain_ids: [id] } as never)[0]
    case 'disciplines':
      return base.parentDisciplinesOf({ discipline_ids: [id] } as never)[0]
    case 'sub_disciplines':
      return base.parentSubDisciplinesOf({ sub_discipline_ids: [id] } as never)[0]
    default:
      return undefined
  }
}

/** The base's children of the parent with this id (the store keys them by the parent's id). */
function baseChildren(base: Taxonomy, level: Level, parentId: string): readonly FixtureRecord[] {
  const parent = { id: parentId } as never
  switch (level) {
    case 'disciplines':
      return base.disciplinesOf(parent)
    case 'sub_disciplines':
      return base.subDisciplinesOf(parent)
    case 'topics':
      return base.topicsOf(parent)
    default:
      return []
  }
}

function linksOf(record: FixtureRecord, field: string): readonly string[] {
  return (record as unknown as Record<string, readonly string[]>)[field] ?? []
}

/**
 * Applies a patch as an overlay on `base`, validated as `patchTaxonomy` validates its result; a
 * problem throws one `FixtureError` naming each at its path in the patch. The patch must be an
 * object of level arrays of record objects (`patchTaxonomy` assumes so; here it is checked).
 *
 * @example
 * createOverlay(base, { sub_disciplines: [{ name: 'Knots', discipline_ids: [base.disciplines[0]!.id] }] })
 */
export function createOverlay(base: Taxonomy, patch: unknown): TaxonomyOverlay {
  const issues = createIssueList()
  const levels = parsePatchShape(patch, issues)
  if (issues.count > 0) throw issues.toError('patch')
  const overlays = {} as Record<Level, LevelOverlay>
  for (const level of LEVELS) {
    overlays[level] = overlayLevel(base, level, levels[level], issues, overlays)
  }
  for (const level of LEVELS) findDangling(base, level, overlays, issues)
  if (issues.count > 0) throw issues.toError('patch')
  return new TaxonomyOverlay(base, overlays)
}

/** Applies one level's patch records, then checks each touched record as a fixture file's. */
function overlayLevel(
  base: Taxonomy,
  level: Level,
  patches: readonly RecordPatch[],
  issues: IssueList,
  above: Partial<Record<Level, LevelOverlay>>,
): LevelOverlay {
  const overlay: LevelOverlay = {
    byId: new Map(),
    bySlug: new Map(),
    position: new Map(),
    replaced: new Map(),
    paths: new Map(),
    touched: [],
    affectedParents: new Set(),
    touchedByParent: new Map(),
    added: 0,
  }
  if (patches.length === 0) return overlay
  const index = indexOf(base, level)
  // Each touched place: its record so far and the path of the last patch record that touched it.
  const drafts = new Map<number, { record: object; at: string }>()
  const added: { record: object; at: string }[] = []
  patches.forEach((patch, i) => {
    const at = `${level}[${i}]`
    const target = findPatchTarget(patch, index.byId, index.bySlug)
    if (target !== undefined) {
      const current = drafts.get(target)?.record ?? index.records[target]!
      drafts.set(target, { record: mergePatch(current, patch), at })
    } else {
      added.push({ record: createPatchedRecord(level, patch), at })
    }
  })
  const link = LINKS[level]
  const parent = link.parent === undefined ? undefined : above[link.parent]!
  const parentIds =
    link.parent === undefined
      ? undefined
      : { has: (id: string) => hasId(base, link.parent, parent!, id) }
  // A touched record's id or slug must not be another record's: an untouched one's, or a touched one's.
  const unique = (field: 'id' | 'slug', inBase: ReadonlyMap<unknown, number>) => {
    const seen = new Map<string, string>()
    return (value: string, at: string, self: number | undefined) => {
      const other = inBase.get(value)
      const first = seen.get(value)
      if (first !== undefined) issues.add(at, `${quote(value)} is already the ${field} of ${first}`)
      else if (other !== undefined && other !== self && !drafts.has(other))
        issues.add(at, `${quote(value)} is already the ${field} of ${level}[${other}] of the data`)
      else seen.set(value, at.slice(0, at.lastIndexOf('.')))
    }
  }
  const uniqueId = unique('id', index.byId)
  const uniqueSlug = unique('slug', index.bySlug)
  const place = (
    draft: { record: object; at: string },
    position: number,
    self?: number,
  ): FixtureRecord => {
    const record = parseRecord(draft.record, draft.at, level, base.format, issues, parentIds, {
      id: (id, at) => uniqueId(id, `${at}.id`, self),
      slug: (slug, at) => uniqueSlug(slug, `${at}.slug`, self),
    })!
    overlay.byId.set(record.id, record)
    overlay.bySlug.set(record.slug, record)
    overlay.position.set(record, position)
    overlay.touched.push(record)
    overlay.paths.set(record, draft.at)
    if (link.field !== undefined) {
      for (const id of linksOf(record, link.field)) {
        overlay.affectedParents.add(id)
        const siblings = overlay.touchedByParent.get(id)
        if (siblings === undefined) overlay.touchedByParent.set(id, [record])
        else siblings.push(record)
      }
    }
    return record
  }
  for (const target of [...drafts.keys()].sort((a, b) => a - b)) {
    const replaced = index.records[target]!
    if (link.field !== undefined) {
      for (const id of linksOf(replaced, link.field)) overlay.affectedParents.add(id)
    }
    overlay.replaced.set(replaced, place(drafts.get(target)!, target, target))
  }
  added.forEach((draft, k) => place(draft, index.records.length + k))
  return Object.assign(overlay, { added: added.length })
}

/** Whether a record of `level` has this id once the patch is applied. */
function hasId(base: Taxonomy, level: Level, overlay: LevelOverlay, id: string): boolean {
  if (overlay.byId.has(id)) return true
  const inBase = findInBase(base, level, id)
  return inBase !== undefined && !overlay.replaced.has(inBase)
}

/**
 * A replaced record whose id changed (a patch found it by slug and gave another id) leaves its
 * untouched children linking to an id no record has: each is a problem at the patch's `id`.
 */
function findDangling(
  base: Taxonomy,
  level: Level,
  overlays: Readonly<Record<Level, LevelOverlay>>,
  issues: IssueList,
): void {
  const childLevel = LINKS[level].child
  const overlay = overlays[level]
  if (childLevel === undefined || overlay.replaced.size === 0) return
  const children = overlays[childLevel]
  for (const [old, record] of overlay.replaced) {
    if (overlay.byId.has(old.id)) continue
    for (const child of baseChildren(base, childLevel, old.id)) {
      if (children.replaced.has(child)) continue
      issues.add(
        `${overlay.paths.get(record)!}.id`,
        `replaces the id ${quote(old.id)} of ${NOUNS[level]} ${quote(old.slug)}, which ${NOUNS[childLevel]} ${quote(child.slug)} links to: every record needs its parent`,
      )
    }
  }
}
