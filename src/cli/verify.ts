import { MAX_BODY_BYTES, MAX_READ_LIMIT, TooLargeError } from '../contract/budget.js'
import { UnreachableError } from '../contract/client.js'
import { formatVerifySummary, toJunitXml } from '../contract/format.js'
import { resolveServiceOptions, shortKeyMessage, type ServiceOptions } from '../contract/options.js'
import { RecordError } from '../contract/record.js'
import { MIN_REDACTABLE_KEY_LENGTH } from '../contract/redact.js'
import { verifyService } from '../contract/verify.js'
import { ENDPOINT_LIST } from '../http/endpoints.js'
import type { ContractArgs } from './contract-args.js'
import type { CliIo } from './io.js'
import { RuntimeError } from './runtime-error.js'
import { UsageError } from './usage-error.js'
import { writeFileAtomically } from './write-file.js'

/**
 * `taxonomy-mock verify`: the summary on stdout, `--report` JSON and `--junit` XML; 0 when no rule
 * fails, 1 when one does, the target cannot be reached, or its data is past the memory budget.
 */
export async function verify(args: ContractArgs, io: CliIo): Promise<number> {
  const options = toServiceOptions(args)
  const report = await verifyService({
    ...options,
    ...(args.crawl !== undefined ? { crawl: args.crawl } : {}),
  }).catch(toRuntimeError)
  for (const line of formatVerifySummary(report, args.keySource)) io.stdout(line)
  if (args.report !== undefined)
    await writeFileAtomically(args.report, `${JSON.stringify(report, null, 2)}\n`, '--report')
  if (args.junit !== undefined) await writeFileAtomically(args.junit, toJunitXml(report), '--junit')
  return report.passed ? 0 : 1
}

/** The library options of the flags, validated once by the library, its TypeErrors naming the flags. */
export function toServiceOptions(args: ContractArgs): ServiceOptions {
  if (args.apiKey.length < MIN_REDACTABLE_KEY_LENGTH)
    throw new UsageError(shortKeyMessage(`the key in ${args.keySource}`, args.apiKey.length))
  const options: ServiceOptions = {
    target: args.target,
    apiKey: args.apiKey,
    ...Object.fromEntries(ENDPOINT_LIST.map(({ startOption }) => [startOption, args[startOption]])),
    ...(args.rate !== undefined ? { rate: args.rate } : {}),
    ...(args.maxRequests !== undefined ? { maxRequests: args.maxRequests } : {}),
    ...(args.timeout !== undefined ? { timeout: args.timeout } : {}),
    ...(args.maxReadMb !== undefined ? { maxReadBytes: args.maxReadMb * MB } : {}),
  }
  try {
    resolveServiceOptions(options)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    // The flag counts megabytes where the option counts bytes.
    if (error.message.startsWith('`maxReadBytes`')) {
      throw new UsageError(
        `--max-read must be a whole number of megabytes from ${MAX_BODY_BYTES / MB} to ${MAX_READ_LIMIT / MB}; received ${args.maxReadMb}`,
      )
    }
    throw new UsageError(
      error.message.replace(/`(\w+)`/g, (_, name: string) => FLAGS[name] ?? name),
    )
  }
  return options
}

const MB = 1024 * 1024

const FLAGS: Readonly<Record<string, string>> = {
  target: '--target',
  apiKey: '--api-key-env NAME',
  ...Object.fromEntries(ENDPOINT_LIST.map(({ startOption, flag }) => [startOption, `--${flag}`])),
  rate: '--rate',
  maxRequests: '--max-requests',
  timeout: '--timeout',
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
