import { recordService } from '../contract/record.js'
import { createRedactor } from '../contract/redact.js'
import { fixtureJsonChunks } from '../core/serialize.js'
import type { ContractArgs } from './contract-args.js'
import { counted } from './counted.js'
import type { CliIo } from './io.js'
import { toRuntimeError, toServiceOptions } from './verify.js'
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
  await writeOutputFile(args.out!, fixtureJsonChunks(result.taxonomy), '--out')
  const { taxonomy } = result
  // A fixture on stdout is the output (`--out /dev/stdout | jq`): the lines go to stderr, as export's do.
  const onStdout = await writesStandardOutput([args.out])
  // Never the key, though the target or the path holds it (docs/keeping-honest.md, "The key").
  const { redact } = createRedactor(args.apiKey)
  const say = (line: string) => (onStdout ? io.stderr(redact(line)) : io.stdout(redact(line)))
  say(
    `taxonomy-mock: recorded ${counted(taxonomy.disciplines.length, 'discipline')}, ${counted(taxonomy.subDisciplines.length, 'sub-discipline')}, ` +
      `${counted(taxonomy.domains.length, 'domain')} and ${counted(taxonomy.topics.length, 'topic')} from ${args.target} in ${counted(result.requests, 'request')} to ${args.out}`,
  )
  const order = result.order === 'name' ? '' : ` --order ${result.order}`
  say(
    onStdout
      ? `Serve it as the service answered, once saved to a file: taxonomy-mock --data FILE${order}`
      : `Serve it as the service answered: taxonomy-mock --data ${args.out}${order}`,
  )
  return 0
}
