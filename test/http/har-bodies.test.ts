import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'
import { toHar } from '../../src/http/request-journal.js'
import { createGatheringResolver } from '../../src/http/resolver.js'
import { emptyTaxonomy } from '../helpers/fixtures.js'

const AUTH = { authorization: 'Bearer taxonomy-mock-key' }

it('gives a body cut inside a character as base64, the bytes sent, not as text with U+FFFD', async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', patch: { preset: 'unicode-names' } })
  const full = await handle(
    new Request('http://x/api/v2/disciplines/unicode-cjk', { headers: AUTH }),
  )
  const bytes = new Uint8Array(await full.arrayBuffer())
  // The first byte of a character of more than one: a cut just after it splits the character.
  const cut = bytes.findIndex((byte) => byte >= 0xc0) + 1
  const request = new Request('http://x/api/v2/disciplines/unicode-cjk', {
    headers: { ...AUTH, prefer: `scenario=malformed, bytes=${cut}` },
  })
  const sent = new Uint8Array(await (await handle(request)).arrayBuffer())
  expect(sent.byteLength).toBe(cut)
  const [whole, malformed] = toHar(handle.journal).log.entries.map((entry) => entry.response)
  expect(whole!.content.encoding).toBeUndefined()
  expect(malformed!.content.encoding).toBe('base64')
  expect(Buffer.from(malformed!.content.text!, 'base64')).toEqual(Buffer.from(sent))
})

it("leaves bodies out past the file's text bound, each saying so, rather than fail", async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', patch: { preset: 'huge-lists' } })
  const url = 'http://x/api/v2/sub_disciplines/huge-sub-discipline'
  let size = 0
  for (let i = 0; i < 20; i++)
    size = (await (await handle(new Request(url, { headers: AUTH }))).arrayBuffer()).byteLength
  const contents = toHar(handle.journal).log.entries.map((entry) => entry.response.content)
  const kept = Math.floor((128 * 2 ** 20) / size)
  expect(contents.slice(0, kept).every((content) => content.text?.length === size)).toBe(true)
  expect(contents.slice(kept).map((content) => [content.text, content.comment])).toEqual(
    Array(20 - kept).fill([undefined, "The body is left out: the file's bodies came to 128 MB"]),
  )
})

it("keeps a relayed body's leading byte order mark in its text, the bytes sent", async () => {
  // A UTF-8 BOM, then JSON: what an upstream may send, relayed byte for byte.
  const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}')])
  const answer = {
    status: 200,
    headers: { 'content-type': 'application/json', 'content-length': String(body.byteLength) },
    body,
  }
  const handle = createFetchHandler(
    createGatheringResolver(
      { taxonomy: emptyTaxonomy() },
      {
        upstream: {
          onMiss: 'passthrough',
          source: { lookUp: async () => ({ kind: 'answer', answer }) },
        },
      },
    ),
  )
  const request = new Request('http://x/api/v2/disciplines/anything', { headers: AUTH })
  const sent = new Uint8Array(await (await handle(request)).arrayBuffer())
  expect(sent).toEqual(body)
  const { text, encoding, size } = toHar(handle.journal).log.entries[0]!.response.content
  expect(size).toBe(body.byteLength)
  expect(encoding).toBeUndefined()
  expect(Buffer.from(text!, 'utf8')).toEqual(Buffer.from(body))
})
