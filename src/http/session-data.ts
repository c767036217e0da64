import { fieldPath } from '../core/field-name.js'
import { toCanonicalJson, digestText } from '../core/digest.js'
import { FixtureError } from '../core/fixture-error.js'
import { OptionError } from '../core/option-error.js'
import { findTooDeep } from '../core/nesting.js'
import { createOverlay, type PatchChanges, type TaxonomyOverlay } from '../core/overlay.js'
import type { TaxonomyPatch } from '../core/patch.js'
import { PRESET_NAMES, isPresetName, presetPatch, type PresetName } from '../core/presets.js'
import { formatReceived } from '../core/size.js'
import type { Taxonomy } from '../core/store.js'
import { LEVELS } from '../core/types.js'

/**
 * What session data may hold: a patch's JSON bytes, records and depth (arrays and objects inside
 * each other), and the bytes of every session's patches together. A session's cost is about its
 * patch: the overlay rebuilds only what it touches.
 */
export const DATA_LIMITS = Object.freeze({
  patchBytes: 1024 * 1024,
  patchRecords: 10_000,
  // A patch nests 4 levels ({"disciplines":[{"domain_ids":["…"]}]}); a recursive walk of the
  // JSON (canonical form, digest) overflows the stack at a few thousand, in any runtime.
  patchDepth: 64,
  totalBytes: 64 * 1024 * 1024,
})

/** A patch, or a preset's name in its place: `{ "preset": "empty-children" }`. */
export type SessionPatch = TaxonomyPatch | { readonly preset: PresetName }

/** A session's patch and its overlay on the data it was applied to. */
export interface SessionData {
  /** The patch as it was given (JSON values only). */
  readonly patch: unknown
  /** The data the overlay sits on: when the server's data is replaced, the patch is applied again. */
  readonly base: Taxonomy
  readonly overlay: TaxonomyOverlay
  /** The patch's canonical JSON size in UTF-8 bytes, counted against {@link DATA_LIMITS}. */
  readonly bytes: number
  /** 16 hex digits of the patch's canonical JSON: `patch=` in `X-Taxonomy-Mock-Dataset`. */
  readonly digest: string
  /** How many records of each level the patch adds and replaces. */
  readonly changes: PatchChanges
}

/**
 * Applies a patch to `base` as a session's data, or throws a `FixtureError` naming every problem
 * at its path in the patch (also for a patch past the limits).
 *
 * @example
 * createSessionData(taxonomy, { disciplines: [{ name: 'Tiny', domain_ids: [taxonomy.domains[0]!.id] }] })
 */
export function createSessionData(base: Taxonomy, patch: unknown): SessionData {
  // Before anything walks the patch recursively.
  const tooDeep = findTooDeepPatch(patch)
  if (tooDeep !== undefined) throw tooDeep
  const json = toCanonicalJson(patch) ?? ''
  // In UTF-8 bytes, as the server reads a body: not in UTF-16 code units (a CJK name is 3 bytes a
  // character), or a patch `withData` takes would be a 413 on the server.
  const bytes = utf8Length(json)
  if (bytes > DATA_LIMITS.patchBytes)
    throw invalid('$', `a patch is at most ${DATA_LIMITS.patchBytes} bytes of JSON; has ${bytes}`)
  const records = countRecords(patch)
  if (records > DATA_LIMITS.patchRecords)
    throw invalid('$', `a patch has at most ${DATA_LIMITS.patchRecords} records; has ${records}`)
  const overlay = overlayOf(base, patch)
  return Object.freeze({
    patch: JSON.parse(json) as unknown,
    base,
    overlay,
    bytes,
    digest: digestText([json]),
    changes: overlay.changes,
  })
}

/**
 * The `FixtureError` refusing a patch nested deeper than {@link DATA_LIMITS} allows, or
 * `undefined`. It walks without recursion: check a patch with it before anything recursive (V8's
 * serializer, sending it to another process, overflows its stack at about 4,000 levels).
 */
export function findTooDeepPatch(patch: unknown): FixtureError | undefined {
  const deep = findTooDeep(patch, DATA_LIMITS.patchDepth)
  if (deep === undefined) return undefined
  return invalid(
    deep,
    `a patch nests arrays and objects at most ${DATA_LIMITS.patchDepth} levels deep`,
  )
}

/** The same patch on other data (`--data FILE --watch` replaced it), or `undefined` if it no longer applies. */
export function reapplySessionData(data: SessionData, base: Taxonomy): SessionData | undefined {
  try {
    return createSessionData(base, data.patch)
  } catch (error) {
    if (error instanceof FixtureError) return undefined
    throw error
  }
}

// A preset gives the same overlay on the same data: sessions with one share it (16 sessions with
// `huge-lists` hold one copy of its 55,000 records).
const presetOverlays = new WeakMap<Taxonomy, Map<PresetName, TaxonomyOverlay>>()

function overlayOf(base: Taxonomy, patch: unknown): TaxonomyOverlay {
  const preset = findPreset(patch)
  if (preset === undefined) return createOverlay(base, patch)
  let overlays = presetOverlays.get(base)
  if (overlays === undefined) presetOverlays.set(base, (overlays = new Map()))
  let overlay = overlays.get(preset)
  if (overlay === undefined) {
    overlay = createOverlay(base, presetPatchOf(base, preset))
    overlays.set(preset, overlay)
  }
  return overlay
}

/** A preset's patch, or the patch's problem (a preset over data with no domain): a 400, not a 500. */
function presetPatchOf(base: Taxonomy, preset: PresetName): TaxonomyPatch {
  try {
    return presetPatch(base, preset)
  } catch (error) {
    if (!(error instanceof OptionError)) throw error
    throw new FixtureError('invalid-fixture', [{ path: 'preset', message: error.requirement }], 1, {
      subject: 'patch',
    })
  }
}

/** The preset a `{ "preset": name }` patch names, `undefined` for other patches; throws for a bad one. */
function findPreset(patch: unknown): PresetName | undefined {
  if (typeof patch !== 'object' || patch === null || !('preset' in patch)) return undefined
  const { preset, ...rest } = patch as { preset: unknown }
  const issues = Object.keys(rest).map((key) => ({
    path: fieldPath('', key),
    message: 'a patch with a preset has no other field',
  }))
  if (!isPresetName(preset))
    issues.unshift({
      path: 'preset',
      message: `expected one of ${PRESET_NAMES.join(', ')}; received ${formatReceived(preset)}`,
    })
  if (issues.length > 0)
    throw new FixtureError('invalid-fixture', issues, issues.length, { subject: 'patch' })
  return preset as PresetName
}

function countRecords(patch: unknown): number {
  if (typeof patch !== 'object' || patch === null) return 0
  let count = 0
  for (const level of LEVELS) {
    const records = (patch as Record<string, unknown>)[level]
    if (Array.isArray(records)) count += records.length
  }
  return count
}

/** The UTF-8 bytes of well-formed text (JSON.stringify escapes a lone surrogate), counted in place. */
function utf8Length(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    // 2 bytes below U+0800, 3 above; a surrogate pair (two units) is 4.
    if (unit >= 0x80) bytes += unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 1 : 2
  }
  return bytes
}

function invalid(path: string, message: string): FixtureError {
  return new FixtureError('invalid-fixture', [{ path, message }], 1, { subject: 'patch' })
}
