import fc from 'fast-check'
import type { Taxonomy } from '../../src/core/store.js'

/** A path segment: real slugs, prototype names, dots, NULs, unicode, broken and valid escapes, 10 KB. */
export function segmentArbitrary(taxonomy: Taxonomy): fc.Arbitrary<string> {
  const slugs = [...taxonomy.disciplines, ...taxonomy.subDisciplines].map((record) => record.slug)
  return fc.oneof(
    fc.constantFrom(...slugs),
    fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      '..',
      '.',
      '',
      '%00',
      '%2F',
      '%2e%2e',
      '%',
      '%E0%A4%A',
      '%C0%AF',
      '%ZZ',
      '%uD800',
    ),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
    fc.string({ maxLength: 30 }).map((text) => text.replace(/[/?#\s]/g, '')),
    fc.stringMatching(/^(%[0-9A-Fa-f]{2}){1,8}$/),
    fc.constant('a'.repeat(10_240)),
  )
}

/** A request target: the two endpoints, their neighbours, other versions and anything else. */
export function pathArbitrary(taxonomy: Taxonomy): fc.Arbitrary<string> {
  const segment = segmentArbitrary(taxonomy)
  const query = fc.oneof(
    fc.constant(''),
    fc.string({ maxLength: 40 }).map((q) => `?${encodeURIComponent(q)}`),
    fc.constant('?a=1&a=2&__proto__=x'),
  )
  const path = fc.oneof(
    fc
      .tuple(fc.constantFrom('disciplines', 'sub_disciplines'), segment)
      .map(([c, s]) => `/api/v2/${c}/${s}`),
    fc
      .tuple(
        fc.constantFrom('disciplines', 'sub_disciplines', 'topics', 'domains', '', '__proto__'),
        segment,
        segment,
      )
      .map(([c, a, b]) => `/api/v2/${c}/${a}/${b}`),
    fc
      .tuple(fc.constantFrom('v1', 'v3', 'V2', ''), segment)
      .map(([v, s]) => `/api/${v}/disciplines/${s}`),
    fc.array(segment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`),
    fc.constantFrom(
      '/',
      '/__health',
      '/openapi.json',
      '/browse/disciplines/x',
      '/api',
      '/api/',
      '//api/v2/disciplines/x',
      '*',
    ),
  )
  return fc.tuple(path, query).map(([p, q]) => p + q)
}

export const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'get',
  'FOO',
] as const

/** An Authorization header: missing, right, wrong, odd schemes and spacing, huge. */
export function authorizationArbitrary(key: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER\t${key}`,
      `Bearer  ${key} `,
      `Bearer ${key}, Bearer other`,
      `Basic ${key}`,
      'Bearer',
      'Bearer ',
      `Bearer ${key}x`,
      `Token ${key}`,
      `Bearer ${key.toUpperCase()}`,
      '',
    ),
    fc.string({ maxLength: 60 }),
    fc.string({ maxLength: 20 }).map((text) => `Bearer ${text}`),
    fc.constant(`Bearer ${'k'.repeat(8_000)}`),
  )
}
