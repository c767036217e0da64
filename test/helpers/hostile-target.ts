import { createServer, type Server } from 'node:http'

/** What a hostile service does: how big each record body is, and how it echoes the key. */
export interface HostileOptions {
  /** The key it accepts, and echoes. */
  readonly key: string
  /** About how many bytes each record body has: that many children with fresh slugs. @default 4096 */
  readonly bodyBytes?: number
  /** Whether bodies, errors and a child's slug echo the key, in every encoding. @default true */
  readonly echo?: boolean
}

/** A hostile service on 127.0.0.1: its URL, the requests it got, and `close()`. */
export interface HostileTarget {
  readonly url: string
  readonly requests: string[]
  close(): Promise<void>
}

/** The key as a service may echo it: raw, JSON-escaped PHP's way, percent-encoded, base64. */
export function echoesOf(key: string): string[] {
  return [
    key,
    JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/'),
    encodeURIComponent(key),
    btoa(key),
  ]
}

/**
 * Starts a service that answers every record lookup with the key in every encoding (in the
 * description, in an error past the 120th character, as a child's slug) and `bodyBytes` of
 * children whose slugs were never seen before, so a crawl never runs out of links.
 */
export async function startHostileTarget(options: HostileOptions): Promise<HostileTarget> {
  const { key, bodyBytes = 4_096, echo = true } = options
  const requests: string[] = []
  const templates = new Map<string, ChildrenTemplate>()
  let bodies = 0
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '')
    const match = /^\/api\/v2\/(disciplines|sub_disciplines)\/([^/]+)$/.exec(req.url ?? '')
    const echoed = echo ? ` echoed: ${echoesOf(key).join(' ')}` : ''
    if (req.headers.authorization !== `Bearer ${key}`) {
      // Past the 120 characters of an excerpt, so a cut would split the key.
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(`{"error":"Invalid or missing API key","detail":"${'.'.repeat(52)}${echoed}"}`)
      return
    }
    if (!match) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(`{"error":"Resource not found","detail":"${'.'.repeat(60)}${echoed}"}`)
      return
    }
    const [, collection, slug] = match
    // A sub-discipline summary takes about 200 bytes, a discipline summary about 90.
    const count = Math.max(1, Math.round(bodyBytes / (collection === 'disciplines' ? 200 : 90)))
    let template = templates.get(collection!)
    if (template === undefined) {
      template = childrenTemplate(count, collection === 'disciplines', echo ? json(key) : undefined)
      templates.set(collection!, template)
    }
    const children = withBodyNumber(template, ++bodies)
    const head = `{"id":"${uuid(0)}","name":"Hostile","slug":${json(decodeURIComponent(slug!))}`
    const [before, after] =
      collection === 'disciplines'
        ? [
            `${head},"description":${json(`A discipline${echoed}`)},"domains":[],"sub_disciplines_count":${count},"sub_disciplines":[`,
            ']}',
          ]
        : [
            `${head},"description":${json(`A sub-discipline${echoed}`)},"disciplines":[`,
            '],"topics_count":0,"topics":[]}',
          ]
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(Buffer.concat([Buffer.from(before), children, Buffer.from(after)]))
  })
  // No idle timeout: a client slow between requests (a busy machine) would race its 5 s close.
  server.keepAliveTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * The children of every body of one collection, laid out once: `count` summaries whose ids and
 * slugs each hold `BODY_DIGITS` places (at `marks`) for the number of the body they are sent in, so
 * that each body's children are new while a body costs a copy, not 100,000 summaries made as text.
 */
interface ChildrenTemplate {
  readonly text: Buffer
  readonly marks: readonly number[]
}

/** What every id starts with before its 12 hex digits (`uuid`'s). */
const ID_PREFIX = uuid(0).slice(0, -12)

/** Hex digits of a body's number in its children's ids and slugs: 16^7 bodies, more than any run asks. */
const BODY_DIGITS = 7

/** `firstSlug` (JSON text) for the first child instead of its own, as the echoing service does. */
function childrenTemplate(
  count: number,
  discipline: boolean,
  firstSlug?: string,
): ChildrenTemplate {
  const parts: string[] = []
  const marks: number[] = []
  let bytes = 0
  const add = (text: string) => {
    parts.push(text)
    bytes += Buffer.byteLength(text)
  }
  const mark = () => {
    marks.push(bytes)
    add('0'.repeat(BODY_DIGITS))
  }
  for (let i = 0; i < count; i++) {
    // An id of 12 hex digits: the body's 7, then the child's 5 (up to a million children a body).
    add(`${i === 0 ? '' : ','}{"id":"${ID_PREFIX}`)
    mark()
    add(`${i.toString(16).padStart(12 - BODY_DIGITS, '0')}","name":"Child ${i + 1}","slug":`)
    if (i === 0 && firstSlug !== undefined) add(firstSlug)
    else {
      add('"child-')
      mark()
      add(`-${i + 1}"`)
    }
    add(discipline ? `,"description":"${CHILD_DESCRIPTION}","topics_count":0}` : '}')
  }
  return { text: Buffer.from(parts.join('')), marks }
}

/** A copy of the template's children with `body`'s number in every place for it. */
function withBodyNumber(template: ChildrenTemplate, body: number): Buffer {
  const text = Buffer.from(template.text)
  const digits = Buffer.from(body.toString(16).padStart(BODY_DIGITS, '0'))
  for (const at of template.marks) text.set(digits, at)
  return text
}

const CHILD_DESCRIPTION =
  'A child listed to make the body large: each one has a slug never seen before.'

/** JSON text of a string, slashes escaped as PHP's json_encode does by default. */
function json(text: string): string {
  return JSON.stringify(text).replace(/\//g, '\\/')
}

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}
