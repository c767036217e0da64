import { stat } from 'node:fs/promises'
import { recordedCounts, recordedJsonChunks, recordService } from '../contract/record.js'
import { createRedactor } from '../contract/redact.js'
import { toMegabytes, toSizeOver } from '../core/megabytes.js'
import type { NestedOrder } from '../core/records.js'
import { toShownName } from '../core/shown-text.js'
import type { ContractArgs } from './contract-args.js'
import { counted } from './counted.js'
import { MAX_DATA_BYTES } from './data-file.js'
import type { CliIo } from './io.js'
import { toRuntimeError, toServiceOptions } from './verify.js'
import { shellWord } from './shell-word.js'
import { writeOutputFile, writesStandardOutput } from './write-file.js'

/**
 * `taxonomy-mock record`: a closed fixture of the service in `--out`, written atomically, and the
 * command that serves it as the service answered; 1 when the set cannot be closed or recorded.
 */
export async function record(args: ContractArgs, io: CliIo): Promise<number> {
  const result = await recordService({ ...toServiceOptions(args), all: args.all }).catch(
    toRuntimeError,
  )
  // In parts: the file of a large service is hundreds of megabytes.
  await writeOutputFile(args.out!, recordedJsonChunks(result), '--out')
  const counts = recordedCounts(result)
  // A fixture on stdout is the output (`--out /dev/stdout | jq`): the lines go to stderr, as export's do.
  const onStdout = await writesStandardOutput([args.out])
  // Never the key, though the target or the path holds it (docs/keeping-honest.md, "The key").
  const { redact } = createRedactor(args.apiKey)
  const say = (line: string) => (onStdout ? io.stderr(redact(line)) : io.stdout(redact(line)))
  say(
    `taxonomy-mock: recorded ${counted(counts.disciplines, 'discipline')}, ${counted(counts.sub_disciplines, 'sub-discipline')}, ` +
      `${counted(counts.domains, 'domain')} and ${counted(counts.topics, 'topic')} from ${args.target} in ${counted(result.requests, 'request')} to ${toShownName(args.out!)}`,
  )
  const size = onStdout ? undefined : await sizeOf(args.out!)
  say(serveAdvice(onStdout ? undefined : args.out!, size, result.order))
  return 0
}

/**
 * The last line: how to serve the recording (`out`, or the file stdout was saved to), or why
 * `--data` would not read it (`size` bytes, past its limit). @internal
 */
export function serveAdvice(
  out: string | undefined,
  size: number | undefined,
  order: NestedOrder,
): string {
  const flag = order === 'name' ? '' : ` --order ${order}`
  if (out === undefined)
    return `Serve it as the service answered, once saved to a file: taxonomy-mock --data FILE${flag}`
  if (size !== undefined && size > MAX_DATA_BYTES)
    return `It is ${toSizeOver(size, MAX_DATA_BYTES)}, more than the ${toMegabytes(MAX_DATA_BYTES)} --data reads: record fewer disciplines to serve one, or load this one in code with loadTaxonomy()`
  // Quoted as a shell reads it back, so the line pastes as it is (a space, a `'`); a name a
  // terminal would act on is shown JSON-quoted instead, as every line shows one.
  const shown = toShownName(out)
  return `Serve it as the service answered: taxonomy-mock --data ${shown === out ? shellWord(out) : shown}${flag}`
}

/** The size of a regular file written; `undefined` for anything else (a FIFO, a device). */
async function sizeOf(file: string): Promise<number | undefined> {
  const info = await stat(file).catch(() => undefined)
  return info?.isFile() ? info.size : undefined
}
