import { expect, it } from 'vitest'
import { SHAPES, type WireOf } from '../../src/core/shapes.js'
import type { Collection, ENDPOINTS } from '../../src/http/endpoints.js'
import type {
  DisciplineRecord,
  DisciplineSummary,
  DomainSummary,
  SubDisciplineRecord,
  SubDisciplineSummary,
  TopicSummary,
} from '../../src/core/types.js'

// The exported record types equal the field table, both ways: `tsc` fails here when one moves.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const held: [
  Same<WireOf<'Discipline'>, DisciplineRecord>,
  Same<WireOf<'SubDiscipline'>, SubDisciplineRecord>,
  Same<WireOf<'DomainSummary'>, DomainSummary>,
  Same<WireOf<'DisciplineSummary'>, DisciplineSummary>,
  Same<WireOf<'SubDisciplineSummary'>, SubDisciplineSummary>,
  Same<WireOf<'TopicSummary'>, TopicSummary>,
] = [true, true, true, true, true, true]

// Each endpoint row's builder returns the record type of its shape: a new row is held with no edit here.
type Rows = typeof ENDPOINTS
type RowsHeld = {
  [Row in Collection]: Same<ReturnType<Rows[Row]['build']>, WireOf<Rows[Row]['schema']>>
}
const rowsHeld: [RowsHeld[Collection]] extends [true] ? true : false = true

it('holds the exported record types to the field table', () => {
  expect(held.every(Boolean)).toBe(true)
  expect(rowsHeld).toBe(true)
  expect(Object.keys(SHAPES)).toEqual([
    'DomainSummary',
    'DisciplineSummary',
    'SubDisciplineSummary',
    'TopicSummary',
    'Discipline',
    'SubDiscipline',
  ])
})
