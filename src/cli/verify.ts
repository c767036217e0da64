import { TooLargeError } from '../contract/budget.js'
import { UnreachableError } from '../contract/client.js'
import { formatVerifySummary, toJunitXml } from '../contract/format.js'
import {
  resolveCrawl,
  resolveServiceOptions,
  SERVICE_LIMITS,
  type ServiceOptions,
} from '../contract/options.js'
import { RecordError } from '../contract/record.js'
import { verifyService } from '../contract/verify.js'
import { MEGABYTE as MB } from '../core/megabytes.js'
import { ENDPOINT_LIST } from '../http/endpoints.js'
import { formatReceived } from '../core/size.js'
import type { ContractArgs } from './contract-args.js'
import type { CliIo } from './io.js'
import { isOptionError, toFlagError } from './option-flags.js'
import { RuntimeError } from './runtime-error.js'
import { UsageError } from './usage-error.js'
import { writeFileAtomically, writesStandardOutput } from './write-file.js'

/**
 * `taxonomy-mock verify`: the summary on stdout (on stderr when a report goes there), `--report`
 * JSON and `--junit` XML; 0 when no rule fails, 1 when one does, the target cannot be reached, or
 * its data is past the memory budget.
 */
export async function verify(args: ContractArgs, io: CliIo): Promise<number> {
  const options = toServiceOptions(args)
  const crawl = judged(args, () => resolveCrawl(args.crawl))
  const report = await verifyService({ ...options, crawl }).catch(toRuntimeError)
  // A report on stdout is the output (`--report /dev/stdout | jq`): the summary goes to stderr.
  const onStdout = await writesStandardOutput([args.report, args.junit])
  for (const line of formatVerifySummary(report, args.keySource))
    if (onStdout) io.stderr(line)
    else io.stdout(line)
  if (args.report !== undefined)
    await writeFileAtomically(args.report, `${JSON.stringify(report, null, 2)}\n`, '--report')
  if (args.junit !== undefined) await writeFileAtomically(args.junit, toJunitXml(report), '--junit')
  return report.passed ? 0 : 1
}

/** The library options of the flags, judged by the library, its errors naming the flags. */
export function toServiceOptions(args: ContractArgs): ServiceOptions {
  const options = {
    target: args.target,
    apiKey: args.apiKey,
    ...Object.fromEntries(ENDPOINT_LIST.map(({ startOption }) => [startOption, args[startOption]])),
    ...(args.rate !== undefined ? { rate: args.rate } : {}),
    ...(args.maxRequests !== undefined ? { maxRequests: args.maxRequests } : {}),
    ...(args.timeout !== undefined ? { timeout: args.timeout } : {}),
    ...(args.maxReadMb !== undefined ? { maxReadBytes: toBytes(args.maxReadMb) } : {}),
  } as ServiceOptions
  judged(args, () => resolveServiceOptions(options))
  return options
}

/**
 * `--max-read` counts megabytes where `maxReadBytes` counts bytes; text stays text, to be judged,
 * and so does a fraction: 16.5 MB is a whole number of bytes, but no whole number of megabytes.
 */
function toBytes(megabytes: number | string): number | string {
  return typeof megabytes === 'number' && Number.isInteger(megabytes)
    ? megabytes * MB
    : String(megabytes)
}

/**
 * `check` with the key named by where it came from; `--max-read` is worded in its own unit,
 * from the library's bounds.
 */
function judged<T>(args: ContractArgs, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (isOptionError(error) && error.option === 'maxReadBytes') {
      const { min, max } = SERVICE_LIMITS.maxReadBytes
      const given = args.maxReadMb
      throw new UsageError(
        `--max-read must be a whole number of megabytes from ${min / MB} to ${max / MB}; received ${formatReceived(given)}`,
      )
    }
    throw toFlagError(error, { apiKey: `the key in ${args.keySource}` })
  }
}

export function toRuntimeError(error: unknown): never {
  if (
    error instanceof UnreachableError ||
    error instanceof TooLargeError ||
    error instanceof RecordError
  )
    throw new RuntimeError(error.message)
  throw error
}
