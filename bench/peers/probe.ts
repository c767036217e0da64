import { KEY } from '../wrk.js'
import { getOnce, type Answer } from './http-request.js'
import { NOT_FOUND, UNAUTHORIZED, type Sample } from './peer.js'

/** What the table says about a peer's answers: `ok`, or what it sent instead. */
export interface Verdicts {
  /** The 200 body is byte for byte the kit's. */
  readonly sameBytes: string
  /** No key, and a wrong key: the spec's 401 body. */
  readonly unauthorized: string
  /** A slug that does not exist: the spec's 404 body. */
  readonly notFound: string
}

const UNKNOWN_SLUG = 'no-such-discipline'

function describe(answer: Answer, sample: Sample): string {
  if (answer.body.equals(sample.body)) return `${answer.status} with the record`
  const text = answer.body.toString('utf8').replace(/\s+/g, ' ')
  return `${answer.status} \`${text.length > 40 ? `${text.slice(0, 40)}…` : text}\``
}

function judge(answer: Answer, expected: { status: number; body: string }, sample: Sample): string {
  const ok = answer.status === expected.status && answer.body.toString('utf8') === expected.body
  return ok ? 'ok' : describe(answer, sample)
}

/** Asks a running peer the sample, and the two §7 errors, once each. */
export async function probePeer(url: string, sample: Sample): Promise<Verdicts> {
  const withKey = { authorization: `Bearer ${KEY}` }
  const record = await getOnce(`${url}${sample.path}`, withKey)
  const noKey = judge(await getOnce(`${url}${sample.path}`), UNAUTHORIZED, sample)
  const wrongKey = judge(
    await getOnce(`${url}${sample.path}`, { authorization: 'Bearer not-the-key' }),
    UNAUTHORIZED,
    sample,
  )
  const unknown = await getOnce(`${url}${sample.path.replace(sample.slug, UNKNOWN_SLUG)}`, withKey)
  return {
    sameBytes:
      record.status === 200 && record.body.equals(sample.body)
        ? 'yes'
        : `no: ${describe(record, sample)}`,
    unauthorized:
      noKey === 'ok' && wrongKey === 'ok' ? 'ok' : `no key: ${noKey}; wrong key: ${wrongKey}`,
    notFound: judge(unknown, NOT_FOUND, sample),
  }
}
