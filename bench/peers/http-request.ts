import { request } from 'node:http'

export interface Answer {
  readonly status: number
  readonly body: Buffer
}

/**
 * One GET on a fresh connection with only the given headers: no `accept-encoding`, so the bytes
 * are those wrk gets (fetch would ask for gzip and decode it).
 */
export function getOnce(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers, agent: false, timeout: timeoutMs }, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks) }),
      )
      incoming.on('error', reject)
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    outgoing.on('error', reject)
    outgoing.end()
  })
}
