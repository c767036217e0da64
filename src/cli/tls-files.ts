import { randomBytes } from 'node:crypto'
import { rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveHost } from '../server/options.js'
import {
  createSelfSignedCertificate,
  findCertificateNames,
  type CertificatePair,
} from '../server/self-signed.js'
import type { TlsArgs } from './args.js'
import { readDataFile } from './data-file.js'
import { MEGABYTE, toMegabytes } from '../core/megabytes.js'
import { RuntimeError } from './runtime-error.js'
import { UsageError } from './usage-error.js'

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
      `${flag} file ${JSON.stringify(problem.option === 'cert' ? tls.cert : tls.key)} ${problem.reason}`,
    )
  }
  return pair
}

async function readPemFile(
  file: string,
  flag: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const where = `${flag} file ${JSON.stringify(file)}`
  const info = await stat(file).catch(() => undefined)
  if (info?.isDirectory()) throw new UsageError(`${where} is a directory, not a PEM file`)
  if (info !== undefined && info.size > MAX_PEM_BYTES)
    throw new UsageError(
      `${where} is over ${toMegabytes(MAX_PEM_BYTES)}: not a PEM certificate or key`,
    )
  return readDataFile(file, where, signal)
}

/**
 * Writes the certificate `--tls` made for clients to trust to `file`, named `what` in a failure.
 * It is written beside its place under a fresh name and renamed into place: a link planted at that
 * path in a shared temp folder is replaced, never followed, and a file another user owns there is
 * refused. A failure is a `RuntimeError` (exit code 1).
 */
async function writeTrustedCertificate(pem: string, file: string, what: string): Promise<string> {
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`
  try {
    await writeFile(partial, pem, { flag: 'wx' })
    await rename(partial, file)
  } catch (error) {
    await rm(partial, { force: true }).catch(() => {})
    const { code, message } = error as NodeJS.ErrnoException
    const reason =
      code === 'ENOENT'
        ? 'no such folder'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a folder'
            : (code ?? message)
    throw new RuntimeError(`cannot write ${what} ${JSON.stringify(file)}: ${reason}`)
  }
  return file
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
   * Where clients find the certificate to trust, for `--tls` (none for files given): a
   * `--tls-ca-out` file was written with the pair, so one that cannot be written is said before
   * the data loads; the temp folder's file is named by the port, so it is written once listening.
   */
  readonly trustedFile: (port: number) => Promise<string | undefined>
}

/** Reads and checks `--tls-cert` and `--tls-key`, or makes the pair `--tls` serves. */
export async function prepareTls(
  tls: TlsArgs,
  host: string,
  signal?: AbortSignal,
): Promise<PreparedTls> {
  if (tls.kind === 'files') {
    const pair = await readTlsFiles(tls, signal)
    return { pair, trustedFile: async () => undefined }
  }
  const pair = makeSelfSignedPair(host)
  const named =
    tls.caOut === undefined
      ? undefined
      : await writeTrustedCertificate(pair.cert, tls.caOut, '--tls-ca-out file')
  return {
    pair,
    // Named by the port, so servers side by side do not share one.
    trustedFile: async (port) =>
      named ??
      writeTrustedCertificate(
        pair.cert,
        join(tmpdir(), `taxonomy-mock-${port}-cert.pem`),
        'the certificate file',
      ),
  }
}
