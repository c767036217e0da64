import { closeSync, constants, createReadStream, openSync, readSync, stat } from 'node:fs'
import { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { FixtureError, summarizeIssues } from '../core/fixture-error.js'
import { noteDataFile } from '../core/identity.js'
import { loadTaxonomy } from '../core/load.js'
import { MEGABYTE, toMegabytes, toSizeOver } from '../core/megabytes.js'
import type { Taxonomy } from '../core/store.js'
import { toQuoted } from '../core/shown-text.js'
import { descriptorOfFile, namesNodesOwnDescriptor } from './descriptor-paths.js'
import { errnoWords } from './errno-words.js'
import { UsageError } from './usage-error.js'
import { decodeUtf8 } from './utf8-text.js'

/**
 * Larger files are refused: `--size large` builds more data than fits in one. Loading takes some
 * five times a file's size in memory, which a machine with less of it than this one may not have.
 */
export const MAX_DATA_BYTES = 100 * MEGABYTE
/**
 * A `--data` file must be read to its end within this time: a FIFO whose writer keeps it open
 * never ends, and nothing else (start-up, the next reload under `--watch`) may wait on it forever.
 */
export const DATA_READ_TIMEOUT_MS = 5_000

/** `stat` without node:fs/promises, which the CLI does not load before it listens (about 2 ms). */
const statOf = promisify(stat)

/**
 * Reads and validates a `--data` fixture file. Every failure is a `UsageError` naming the file
 * and, for bad content, the JSON path of the first problem. The size limit holds while reading,
 * whatever the file is (a FIFO, `/dev/zero`, `<(command)`); a regular file over it is refused
 * before reading, and the read must end within `timeoutMs`. `signal` abandons the read (a signal
 * during start-up).
 */
export async function loadDataFile(
  file: string,
  signal?: AbortSignal,
  timeoutMs = DATA_READ_TIMEOUT_MS,
): Promise<Taxonomy> {
  return (await readFixtureFile(file, signal, timeoutMs)).taxonomy
}

/** A `--data` file read and checked, as {@link loadDataFile} does, with the bytes it came from. */
export interface FixtureFile {
  readonly taxonomy: Taxonomy
  /** What a process that cannot read the file itself loads (a worker, from a FIFO's). */
  readonly bytes: Uint8Array
}

/** {@link loadDataFile}, with the file's bytes. */
export async function readFixtureFile(
  file: string,
  signal?: AbortSignal,
  timeoutMs = DATA_READ_TIMEOUT_MS,
): Promise<FixtureFile> {
  const bytes = await readDataBytes(file, fixtureWhere(file), signal, timeoutMs)
  return { taxonomy: await loadFixtureBytes(file, bytes), bytes }
}

const fixtureWhere = (file: string) => `--data file ${toQuoted(file)}`

/**
 * The fixture of a `--data` file's bytes, as read by another process (a worker is handed the
 * primary's: a FIFO or `<(command)` can be read once, and a file may change between two reads).
 */
export async function loadFixtureBytes(file: string, bytes: Uint8Array): Promise<Taxonomy> {
  const where = fixtureWhere(file)
  // Over IPC a Buffer arrives as a plain Uint8Array: a view of it, no copy.
  const text = decodeUtf8(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), where, {
    keepBom: true,
  })
  let taxonomy: Taxonomy
  try {
    taxonomy = loadTaxonomy(text)
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error
    throw new UsageError(`invalid ${where}: ${summarizeIssues(error.issues, error.issueCount)}`)
  }
  // The SHA-256 of the file's bytes, as `sha256sum` gives it, names the data in
  // `X-Taxonomy-Mock-Dataset` and `/__health`. Loaded only here: a server without `--data` (or
  // TLS) never loads node:crypto.
  const { createHash } = await import('node:crypto')
  noteDataFile(taxonomy, createHash('sha256').update(bytes).digest('hex'))
  return taxonomy
}

/** The most a file may bring, and what to say past it. */
export interface ReadLimit {
  readonly bytes: number
  /** Said after the limit: the ways to more data, or none. */
  readonly hint: string
}

const FIXTURE_LIMIT: ReadLimit = {
  bytes: MAX_DATA_BYTES,
  hint: ' (generate more data with --size large; loadTaxonomy() reads a larger file in code)',
}

/**
 * A file's text, which must be UTF-8, within `limit` (a fixture's {@link MAX_DATA_BYTES} by
 * default) and `timeoutMs`; every failure is a `UsageError` that names the file as `where` does
 * (`--data file "t.json"`).
 */
export async function readDataFile(
  file: string,
  where: string,
  signal?: AbortSignal,
  timeoutMs = DATA_READ_TIMEOUT_MS,
  limit: ReadLimit = FIXTURE_LIMIT,
): Promise<string> {
  return decodeUtf8(await readDataBytes(file, where, signal, timeoutMs, limit), where)
}

/**
 * A fixture file's text, as {@link readDataFile} reads it, its byte-order mark kept for the loader
 * to drop: the CLI takes the files `loadTaxonomy(readFileSync(file, 'utf8'))` takes, no more.
 */
export async function readFixtureText(file: string, where: string): Promise<string> {
  return decodeUtf8(await readDataBytes(file, where), where, { keepBom: true })
}

/** A file's bytes, as {@link readDataFile} reads them. */
async function readDataBytes(
  file: string,
  where: string,
  signal?: AbortSignal,
  timeoutMs = DATA_READ_TIMEOUT_MS,
  limit: ReadLimit = FIXTURE_LIMIT,
): Promise<Buffer> {
  try {
    // Not one the process was given: reading libuv's own pipe outlived the time bound, and signals.
    if (namesNodesOwnDescriptor(file)) throw Object.assign(new Error(file), { code: 'ENOENT' })
    const info = await statOf(file)
    if (info.isDirectory()) throw new UsageError(`${where} is a directory, not a fixture file`)
    if (info.isCharacterDevice() && isTerminal(file))
      throw new UsageError(`${where} is a terminal, not a file`)
    if (info.size > limit.bytes) {
      throw new UsageError(
        `${where} is ${toSizeOver(info.size, limit.bytes)}; the limit is ${toMegabytes(limit.bytes)}${limit.hint}`,
      )
    }
    // open() refuses a socket (ENXIO): `/dev/stdin` of a child Node's `spawn` started is one,
    // read through the descriptor itself; any other is said in words, not as a bare errno.
    const descriptor = info.isSocket() ? descriptorOfFile(file) : undefined
    if (info.isSocket() && descriptor === undefined)
      throw new UsageError(`${where} is a socket, not a file`)
    const source = descriptor ?? (info.isFIFO() ? 'fifo' : 'file')
    return await readLimited(file, source, where, { signal, timeoutMs, limit })
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`cannot read ${where}: ${reasonOf(error as NodeJS.ErrnoException)}`)
  }
}

/**
 * The file's bytes, failing as soon as more than {@link MAX_DATA_BYTES} arrive or once `timeoutMs`
 * has passed. A FIFO is opened without blocking (one with no writer reads as empty instead of
 * waiting forever) and read as a pipe, so it can be abandoned; a socket the process holds (a
 * descriptor's number) is read as one.
 */
async function readLimited(
  file: string,
  source: 'file' | 'fifo' | number,
  where: string,
  {
    signal,
    timeoutMs,
    limit,
  }: { signal: AbortSignal | undefined; timeoutMs: number; limit: ReadLimit },
): Promise<Buffer> {
  let stream: Readable
  const chunks: Buffer[] = []
  const isPipe = source === 'fifo'
  if (typeof source === 'number') {
    stream = new Socket({ fd: source, readable: true, writable: false })
  } else if (isPipe) {
    // Opening a FIFO for reading waits for a writer; without blocking it returns at once.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
    const first = readNow(fd)
    if (first?.length === 0) {
      closeSync(fd)
      throw new UsageError(`${where} is a FIFO with no writer: nothing to read`)
    }
    if (first) chunks.push(first)
    // The socket owns the descriptor from here and closes it.
    stream = new Socket({ fd, readable: true, writable: false })
  } else {
    stream = createReadStream(file)
  }
  const abort = () => stream.destroy()
  signal?.addEventListener('abort', abort, { once: true })
  const late = isPipe
    ? `${where} is a FIFO that did not end within ${seconds(timeoutMs)} (its writer keeps it open)`
    : `${where} could not be read within ${seconds(timeoutMs)}`
  const timer = setTimeout(() => stream.destroy(new UsageError(late)), timeoutMs)
  try {
    let bytes = chunks[0]?.length ?? 0
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length
      if (bytes > limit.bytes) {
        throw new UsageError(`${where} is over the ${toMegabytes(limit.bytes)} limit${limit.hint}`)
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks)
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', abort)
    stream.destroy()
  }
}

/**
 * Whether `file`, a character device, is a terminal (`/dev/tty`, `/dev/stdin` at a prompt): its
 * read would wait for typing in one of libuv's threads, which no signal ends and the exit waits for.
 */
function isTerminal(file: string): boolean {
  // Without blocking, and without becoming the process's controlling terminal.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
  try {
    // node:tty loaded here, for a character device, not at every start.
    return process.getBuiltinModule('node:tty').isatty(fd)
  } finally {
    closeSync(fd)
  }
}

/** A non-blocking read: the bytes there, an empty buffer at end of file (no writer), `undefined` for none yet. */
function readNow(fd: number): Buffer | undefined {
  const buffer = Buffer.alloc(64 * 1024)
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, null))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return undefined
    closeSync(fd)
    throw error
  }
}

function reasonOf(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file'
  return errnoWords(error.code) ?? error.code ?? error.message
}

function seconds(ms: number): string {
  return `${ms / 1000} s`
}
