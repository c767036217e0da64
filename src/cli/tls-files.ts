import { X509Certificate } from 'node:crypto'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveHost } from '../server/options.js'
import {
  createSelfSignedCertificate,
  findCertificateNames,
  type CertificatePair,
} from '../server/self-signed.js'
import { toQuoted } from '../core/shown-text.js'
import type { TlsArgs } from './args.js'
import { readDataFile } from './data-file.js'
import { MEGABYTE, toMegabytes } from '../core/megabytes.js'
import { UsageError } from './usage-error.js'
import { stageOutputFile, writeOwnFile } from './write-file.js'

/** PEM files hold a certificate chain or a key: a few kilobytes. */
const MAX_PEM_BYTES = MEGABYTE

/**
 * `--tls-cert` and `--tls-key`, read and checked before anything listens. Every failure is a
 * `UsageError` naming the flag, the file and the cause: unreadable, not PEM, an encrypted key, a
 * key of another certificate.
 */
async function readTlsFiles(
  tls: Extract<TlsArgs, { kind: 'files' }>,
  signal?: AbortSignal,
): Promise<CertificatePair> {
  const pair = {
    cert: await readPemFile(tls.cert, '--tls-cert', signal),
    key: await readPemFile(tls.key, '--tls-key', signal),
  }
  const problem = (await import('../server/tls.js')).findTlsProblem(pair)
  if (problem) {
    const flag = `--tls-${problem.option}`
    throw new UsageError(
      `${flag} file ${toQuoted(problem.option === 'cert' ? tls.cert : tls.key)} ${problem.reason}`,
    )
  }
  return pair
}

async function readPemFile(
  file: string,
  flag: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const where = `${flag} file ${toQuoted(file)}`
  const info = await stat(file).catch(() => undefined)
  if (info?.isDirectory()) throw new UsageError(`${where} is a directory, not a PEM file`)
  if (info !== undefined && info.size > MAX_PEM_BYTES)
    throw new UsageError(
      `${where} is over ${toMegabytes(MAX_PEM_BYTES)}: not a PEM certificate or key`,
    )
  // A device or pipe has no size to check first: the bound holds as it is read.
  try {
    return await readDataFile(file, where, signal, undefined, {
      bytes: MAX_PEM_BYTES,
      hint: ': not a PEM certificate or key',
    })
  } catch (error) {
    // Bytes that are no text are most often DER, the binary form of the same certificate or key.
    if (error instanceof UsageError && error.message.startsWith(`${where} is not UTF-8`))
      throw new UsageError(
        `${where} is binary, not PEM text (DER? \`openssl x509 -inform der\` or \`openssl pkey -inform der\` writes it as PEM)`,
      )
    throw error
  }
}

/**
 * The certificate `--tls` makes, for the names the server listens on: made once by the CLI, which
 * with `--workers` gives it to every worker.
 */
function makeSelfSignedPair(host: string): CertificatePair {
  return createSelfSignedCertificate(findCertificateNames(resolveHost(host)))
}

/** What the TLS flags give a server before it listens, the same for one process and for workers. */
export interface PreparedTls {
  readonly pair: CertificatePair
  /**
   * Where clients find the certificate to trust, for `--tls` (none for files given), put in place
   * once listening: a `--tls-ca-out` file was written beside its target with the pair, so one that
   * cannot be written is said before the data loads, and is renamed into place only now, so a start
   * that fails leaves the file of a server already running with it as it was; the temp folder's
   * file is named by the port, so it is written only now.
   */
  readonly trustedFile: (port: number) => Promise<string | undefined>
  /** Removes the `--tls-ca-out` file written beside its target: the server did not start. */
  readonly discard: () => Promise<void>
  /** A line to say before serving: a `--tls-cert` out of its dates, served as given. */
  readonly warning?: string
}

/** Reads and checks `--tls-cert` and `--tls-key`, or makes the pair `--tls` serves. */
export async function prepareTls(
  tls: TlsArgs,
  host: string,
  signal?: AbortSignal,
): Promise<PreparedTls> {
  if (tls.kind === 'files') {
    const pair = await readTlsFiles(tls, signal)
    const warning = describeDates(pair.cert, tls.cert)
    return {
      pair,
      trustedFile: async () => undefined,
      discard: async () => {},
      ...(warning ? { warning } : {}),
    }
  }
  const pair = makeSelfSignedPair(host)
  const staged =
    tls.caOut === undefined
      ? undefined
      : await stageOutputFile(tls.caOut, [pair.cert], '--tls-ca-out')
  // A stop meanwhile ends the start-up, which may no longer wait for this: nothing would commit it.
  if (signal?.aborted) await staged?.discard()
  return {
    pair,
    discard: async () => await staged?.discard(),
    trustedFile: async (port) => {
      if (staged !== undefined) {
        await staged.commit()
        return tls.caOut
      }
      // Named by the port, so servers side by side do not share one.
      const file = join(tmpdir(), `taxonomy-mock-${port}-cert.pem`)
      await writeOwnFile(file, pair.cert, 'the certificate file')
      return file
    },
  }
}

/**
 * What is wrong with a certificate's dates, said rather than refused: a test of how a client
 * meets an expired certificate serves one on purpose.
 */
function describeDates(pem: string, file: string): string | undefined {
  const { validFrom, validTo } = new X509Certificate(pem)
  const now = Date.now()
  const where = `--tls-cert file ${toQuoted(file)}`
  if (Date.parse(validTo) < now)
    return `${where} expired on ${validTo}: clients that check it refuse it (served as given)`
  if (Date.parse(validFrom) > now)
    return `${where} is valid only from ${validFrom}: clients that check it refuse it (served as given)`
  return undefined
}
