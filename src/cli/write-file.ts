import { once } from 'node:events'
import { constants, createWriteStream, fstatSync, open, openSync, rmSync } from 'node:fs'
import { chmod, lstat, mkdir, readlink, realpath, rename, rm, stat } from 'node:fs/promises'
import { Socket } from 'node:net'
import { basename, dirname, join, resolve } from 'node:path'
import type { Writable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { promisify } from 'node:util'
import { toQuoted } from '../core/shown-text.js'
import type { OPTIONS } from './args.js'
import type { CONTRACT_OPTIONS } from './contract-args.js'
import {
  descriptorOfFile,
  findDescriptorPath,
  MAX_LINKS,
  isNodesOwnDescriptor,
  ownDescriptorOf,
} from './descriptor-paths.js'
import { errnoWords } from './errno-words.js'
import { RuntimeError } from './runtime-error.js'

/** The flags a flag table marks `file: 'written'`, as `--name`: the only flags files are written for. */
type WrittenIn<Table> = {
  [Name in keyof Table & string]: Table[Name] extends { readonly file: 'written' }
    ? `--${Name}`
    : never
}[keyof Table & string]
// `--data` is read, and rewritten only by `serve --on-miss capture`, with the records it captures.
type WrittenFileFlag = WrittenIn<typeof OPTIONS> | WrittenIn<typeof CONTRACT_OPTIONS> | '--data'

/** Partial files being written now, so that a stop signal can remove them (see removePartialFiles). */
const partialFiles = new Set<string>()

/**
 * Writes `text` to `file` (see {@link writeOutputFile}). `flag` names the file in errors.
 *
 * @example
 * await writeFileAtomically('report.json', json, '--report')
 */
export async function writeFileAtomically(
  file: string,
  text: string,
  flag: WrittenFileFlag,
): Promise<void> {
  await writeOutputFile(file, [text], flag)
}

/**
 * Writes `chunks` to `file`, the value of `flag`: every flag that writes a file writes it here.
 * A regular file (or none yet) is written beside its target and renamed into place, making its
 * folder if missing: a reader sees the old file or the new one, never half of one, with the old
 * one's mode, and a link to it (dangling too) stays a link; a loop of links is refused. A
 * character device, FIFO or socket (`/dev/null`, a named pipe) is written to directly, as is a path
 * that names a descriptor (`/dev/stdout`, `/dev/fd/3`), appending, so as not to cut off what the
 * process wrote there before: replacing one would leave a regular file where the device was. A
 * FIFO waits for its reader, as a shell's `>` does. A folder is refused.
 */
export async function writeOutputFile(
  file: string,
  chunks: Iterable<string>,
  flag: WrittenFileFlag,
): Promise<void> {
  await writeTo(file, chunks, `${flag} file`, () => findTarget(file))
}

/**
 * Writes `text` to `file`, a name the CLI chose itself in a shared folder (the temp folder's
 * certificate), never one a user named: it is written beside it and renamed into place whatever
 * is there, so a link planted at that path is replaced, never followed or written through, and a
 * file another user owns there is refused (the folder's sticky bit). `what` names it in errors.
 */
export async function writeOwnFile(file: string, text: string, what: string): Promise<void> {
  await writeTo(file, [text], what, async () => ({
    kind: 'replace',
    path: file,
    makeFolder: false,
  }))
}

/** Writes `chunks` to `file` as `find` says; a failure is one `RuntimeError` naming `what`. */
async function writeTo(
  file: string,
  chunks: Iterable<string>,
  what: string,
  find: () => Promise<Target>,
): Promise<void> {
  await (await stageTo(file, chunks, what, find)).commit()
}

/**
 * A file written beside its target, not in place yet: `commit` renames it there, `discard` removes
 * it; either once, the other is then a no-op. A target written to directly (a device, a FIFO, a
 * descriptor) was written already: both do nothing.
 */
export interface StagedFile {
  commit(): Promise<void>
  discard(): Promise<void>
}

const WRITTEN: StagedFile = { commit: async () => {}, discard: async () => {} }

/**
 * Writes `chunks` as {@link writeOutputFile} does, but leaves a regular file beside its target until
 * `commit`: every error of making its folder, opening and writing it is said now, and what is there
 * stays as it was until then (a `--tls-ca-out` file is replaced only once the server listens).
 *
 * @example
 * const staged = await stageOutputFile('ca.pem', [pem], '--tls-ca-out')
 * await staged.commit()
 */
export async function stageOutputFile(
  file: string,
  chunks: Iterable<string>,
  flag: WrittenFileFlag,
): Promise<StagedFile> {
  return await stageTo(file, chunks, `${flag} file`, () => findTarget(file))
}

/** Writes `chunks` for `file` as `find` says, short of the rename; a failure is one `RuntimeError` naming `what`. */
async function stageTo(
  file: string,
  chunks: Iterable<string>,
  what: string,
  find: () => Promise<Target>,
): Promise<StagedFile> {
  const failure = async (error: unknown) =>
    new RuntimeError(
      `cannot write ${what} ${toQuoted(file)}: ${await describeWriteError(error as NodeJS.ErrnoException, file)}`,
    )
  let partial: string | undefined
  try {
    const target = await find()
    if (target.kind !== 'replace') {
      await writeThrough(target, chunks)
      return WRITTEN
    }
    // `--out fixtures/taxonomy.json` in a project without fixtures/ should just work.
    if (target.makeFolder) await makeFolders(dirname(target.path))
    // Fresh for each write: a partial file a killed run left, or one planted in a shared folder,
    // is not in the way.
    partial = partialPathOf(target.path)
    partialFiles.add(partial)
    const stream = createWriteStream(partial, { flags: 'wx' })
    // Its open error said before anything is written.
    await once(stream, 'open')
    // The file it replaces keeps its mode (a private 600 file stays private).
    if (target.mode !== undefined) await chmod(partial, target.mode)
    await writeChunks(stream, chunks)
    return stagedAt(partial, target.path, failure)
  } catch (error) {
    // Best effort: where the folder could not be made there is no partial file either.
    if (partial !== undefined) await removePartial(partial)
    throw await failure(error)
  }
}

/** The {@link StagedFile} of `partial`, written in full, to be renamed to `path`. */
function stagedAt(
  partial: string,
  path: string,
  failure: (error: unknown) => Promise<RuntimeError>,
): StagedFile {
  let settled = false
  return {
    commit: async () => {
      if (settled) return
      settled = true
      try {
        await rename(partial, path)
        partialFiles.delete(partial)
      } catch (error) {
        await removePartial(partial)
        throw await failure(error)
      }
    },
    discard: async () => {
      if (settled) return
      settled = true
      await removePartial(partial)
    },
  }
}

/** Removes a partial file, best effort, and forgets it. */
async function removePartial(partial: string): Promise<void> {
  await rm(partial, { force: true }).catch(() => {})
  partialFiles.delete(partial)
}

/** The longest file name, in bytes, that Linux and macOS file systems take. */
const MAX_NAME_BYTES = 255

/**
 * Where `path` is written first: beside it, under a fresh name for each write, its own name cut
 * (never inside a character) so the partial name still fits where a name as long as the file
 * system takes is written.
 */
function partialPathOf(path: string): string {
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2, 10)}.partial`
  let name = ''
  let bytes = Buffer.byteLength(suffix)
  for (const character of basename(path)) {
    bytes += Buffer.byteLength(character)
    if (bytes > MAX_NAME_BYTES) break
    name += character
  }
  return join(dirname(path), name + suffix)
}

/**
 * Whether any of `files` is written to this process's standard output (`/dev/stdout`, `/dev/fd/1`,
 * or a link to one), as {@link writeOutputFile} finds it: a command then keeps its lines off stdout.
 *
 * @example
 * await writesStandardOutput(['/dev/stdout', undefined]) // true
 */
export async function writesStandardOutput(
  files: readonly (string | undefined)[],
): Promise<boolean> {
  return files.some((file) => file !== undefined && descriptorOfFile(file) === 1)
}

/** Removes, at once, every partial file being written: the process is being stopped. */
export function removePartialFiles(): void {
  for (const partial of partialFiles) rmSync(partial, { force: true })
  partialFiles.clear()
}

type Target =
  | {
      readonly kind: 'replace'
      readonly path: string
      readonly makeFolder: boolean
      /** The mode of the file replaced, if any. */
      readonly mode?: number
    }
  | { readonly kind: 'open'; readonly path: string; readonly flags: 'a' | 'w' }
  | { readonly kind: 'stdio'; readonly stream: NodeJS.WriteStream }

async function findTarget(file: string): Promise<Target> {
  // Written beside it, `new/` would be `new/.….partial`, in a folder that is not there.
  if (file.endsWith('/')) throw Object.assign(new Error('ends in /'), { code: 'EFOLDERNAME' })
  const descriptor = findDescriptorPath(file)
  if (descriptor !== undefined) {
    const own = ownDescriptorOf(descriptor)
    // Not one the process was given: writing into libuv's own pipe hung it, or crashed it.
    if (own !== undefined && isNodesOwnDescriptor(own))
      throw Object.assign(new Error('no open descriptor'), { code: 'ENOENT', path: file })
    // Our own stdout or stderr may be a socket (Node's child processes), which cannot be opened by path.
    if (own === 1 || own === 2)
      return { kind: 'stdio', stream: own === 1 ? process.stdout : process.stderr }
    return { kind: 'open', path: file, flags: 'a' }
  }
  // Missing or not to be looked at: written beside it, which then says what is wrong. A loop of
  // links has nothing to replace, and replacing the link would break it silently.
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw error
    return undefined
  })
  if (info === undefined)
    return { kind: 'replace', path: await findLinkTarget(file), makeFolder: true }
  if (info.isDirectory()) throw Object.assign(new Error('is a folder'), { code: 'EISDIR' })
  if (!info.isFile()) return { kind: 'open', path: file, flags: 'w' }
  // Its links checked as a dangling one's are: a link another user planted in /tmp is not followed.
  const linked = await findLinkTarget(file)
  return {
    kind: 'replace',
    path: await realpath(linked),
    makeFolder: true,
    // Permission bits only: a write by another than root clears set-user-ID and set-group-ID too.
    mode: info.mode & 0o777,
  }
}

/**
 * Where a file is to be written: at the end of the links `file` is (a dangling link is written
 * through, so a link stays a link), else `file` itself. A link is followed only as the kernel's
 * `protected_symlinks` would follow it ({@link mayFollow}).
 */
async function findLinkTarget(file: string): Promise<string> {
  let path = file
  for (let links = 0; links <= MAX_LINKS; links++) {
    const next = await readlink(path).catch(() => undefined)
    if (next === undefined) return path
    if (!(await mayFollow(path)))
      throw Object.assign(new Error("another user's link"), { code: 'ELINKOWNER' })
    path = resolve(dirname(path), next)
  }
  throw Object.assign(new Error('too many links'), { code: 'ELOOP' })
}

/**
 * Whether a link may be followed as the kernel's `protected_symlinks` lets it be: this user's
 * own, or the folder owner's, or in a folder that is not both sticky and world-writable (`/tmp`
 * is). Following it in user code would otherwise let anyone who can write `/tmp` plant a link that
 * makes or replaces a file elsewhere.
 */
async function mayFollow(link: string): Promise<boolean> {
  const uid = process.getuid?.()
  const { uid: owner } = await lstat(link)
  if (uid === undefined || owner === uid) return true
  const folder = await stat(dirname(link))
  // The sticky bit (0o1000, not among Node's `fs.constants`) and write for others (0o002).
  return (folder.mode & 0o1002) !== 0o1002 || folder.uid === owner
}

/**
 * `mkdir -p`, one folder at a time from the first missing one: on Node 20 a recursive `mkdir`
 * under a folder that takes no new folder (`/proc`) retries its ENOENT forever.
 */
async function makeFolders(folder: string): Promise<void> {
  const missing: string[] = []
  for (let path = resolve(folder); dirname(path) !== path; path = dirname(path)) {
    if (await exists(path)) break
    missing.unshift(path)
  }
  for (const path of missing) {
    // Made meanwhile by another process: what it is shows when the file is written.
    await mkdir(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
  }
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/** Writes to a device, FIFO or descriptor; a reader that leaves early (EPIPE) ends it quietly, as for stdout. */
async function writeThrough(
  target: Exclude<Target, { kind: 'replace' }>,
  chunks: Iterable<string>,
): Promise<void> {
  try {
    if (target.kind === 'open') return await writeChunks(await openStream(target), chunks)
    for (const chunk of chunks) {
      if (!target.stream.write(chunk)) await once(target.stream, 'drain')
    }
    await new Promise<void>((resolve, reject) =>
      target.stream.write('', (error) => (error ? reject(error) : resolve())),
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error
  }
}

/**
 * A stream writing to a device, FIFO or descriptor path. A FIFO's open waits for its reader in one
 * of libuv's threads, which the process's exit waits for: should the process end first (a stop
 * signal), it opens the FIFO for reading itself, without waiting, which ends that wait. A FIFO is
 * then written as a pipe, without a thread, so a reader that stops reading holds up no exit either.
 */
async function openStream(target: Extract<Target, { kind: 'open' }>): Promise<Writable> {
  const release = () => {
    try {
      openSync(target.path, constants.O_RDONLY | constants.O_NONBLOCK)
    } catch {
      // Not a FIFO, or gone: nothing waits.
    }
  }
  process.once('exit', release)
  let fd: number
  try {
    fd = await promisify(open)(target.path, target.flags)
  } finally {
    process.off('exit', release)
  }
  return fstatSync(fd).isFIFO()
    ? new Socket({ fd, readable: false, writable: true })
    : createWriteStream(target.path, { fd })
}

/**
 * The bytes gathered before each write. A large recording's file is some 400 MB in chunks of about
 * 100 KB: a write per chunk, each made bytes in a buffer of its own and handed to a thread of
 * libuv's, took some 0.3 s of CPU more than one write per megabyte from one buffer.
 */
const BATCH_BYTES = 1 << 20

async function writeChunks(stream: Writable, chunks: Iterable<string>): Promise<void> {
  // A failed write's error reaches its callback, which rejects; the 'error' event emitted beside
  // it needs a listener, or it would be thrown.
  stream.on('error', () => {})
  try {
    const batch = Buffer.allocUnsafe(BATCH_BYTES)
    let used = 0
    for (const chunk of chunks) {
      // A UTF-16 unit is at most 3 bytes of UTF-8. Each chunk is made bytes on its own, as the
      // stream would: the same bytes, whatever the batches.
      const most = chunk.length * 3
      if (most > BATCH_BYTES - used && used > 0) {
        await written(stream, batch.subarray(0, used))
        used = 0
      }
      if (most > BATCH_BYTES) await written(stream, chunk)
      else used += batch.write(chunk, used)
    }
    if (used > 0) await written(stream, batch.subarray(0, used))
    stream.end()
    // A file's descriptor is closed after 'finish', and a close that fails (a network file
    // system's late write error) fails the write: waited for, not left to the listener above. A
    // FIFO's socket is done at 'finish'.
    await (stream instanceof Socket ? once(stream, 'finish') : finished(stream))
  } finally {
    stream.destroy()
  }
}

/** Writes `data` and settles once it is written: a buffer's bytes may then be overwritten. */
function written(stream: Writable, data: Uint8Array | string): Promise<void> {
  return new Promise((resolve, reject) =>
    stream.write(data, (error) => (error ? reject(error) : resolve())),
  )
}

/** Why a file could not be written, in words, naming the path at fault where it is not the file. */
async function describeWriteError(error: NodeJS.ErrnoException, file: string): Promise<string> {
  switch (error.code) {
    case 'EEXIST':
    case 'ENOTDIR': {
      // mkdir -p met a file where a folder must be: name it.
      const blocker = await findFileOnPath(dirname(file))
      return blocker
        ? `${toQuoted(blocker)} is a file, not a folder`
        : 'a part of the path is a file, not a folder'
    }
    case 'ENOENT':
      if (error.syscall === 'mkdir' && error.path !== undefined)
        return `the folder ${toQuoted(dirname(error.path))} takes no new folder`
      // Opened as it is (a descriptor path, a device): that name is not there, whatever its folder.
      if (error.path === file) return 'no such file or folder'
      // A folder that is there but takes no new file (/proc, /sys) says ENOENT too.
      return (await stat(dirname(file)).then(
        (info) => info.isDirectory(),
        () => false,
      ))
        ? 'the folder takes no new file'
        : 'no such folder'
    case 'ENOSPC':
      return 'no space left on the device'
    case 'EISDIR':
      return 'it is a folder'
    case 'EFOLDERNAME':
      return 'it ends in /, which names a folder, not a file'
    case 'EROFS':
      return 'the file system is read-only'
    // A disk or a network file system failed the write, at the latest when the file was closed.
    case 'EIO':
      return 'an input/output error on its device'
    case 'ELINKOWNER':
      return "it is another user's symbolic link in a shared folder, which is not followed"
    default:
      return errnoWords(error.code) ?? error.code ?? error.message
  }
}

/** The first existing non-folder on the way to `folder`, if any. */
async function findFileOnPath(folder: string): Promise<string | undefined> {
  const parts: string[] = []
  for (let current = folder; dirname(current) !== current; current = dirname(current))
    parts.unshift(current)
  for (const part of parts) {
    const info = await stat(part).catch(() => undefined)
    if (info === undefined) return undefined
    if (!info.isDirectory()) return part
  }
  return undefined
}
