import { expect, it } from 'vitest'
import type { StopSignal } from '../../src/cli/io.js'
import { run, type CliIo } from '../../src/cli/main.js'
import { countBuiltTopics, createTaxonomy } from '../../src/core/generate.js'
import { SIZES } from '../../src/core/size.js'

// A generated dataset builds its topics on first use: a million at `--size large`. Starting the
// server and printing the banner (its example slugs, one line per endpoint) must build none.
it('builds no topic at --size large to start and print the banner; a sub-discipline asked for builds its own', async () => {
  const lines: string[] = []
  let stop: (signals: number, signal: StopSignal) => void = () => {}
  let bannerPrinted = () => {}
  const banner = new Promise<void>((resolve) => (bannerPrinted = resolve))
  const io: CliIo = {
    stdout: (line) => {
      lines.push(line)
      if (line.startsWith('  stop:')) bannerPrinted()
    },
    stderr: (line) => lines.push(line),
    startLog: () => {},
    log: () => {},
    finishLog: () => {},
    write: async () => {},
    env: {},
    onStop: (handler) => {
      stop = handler
      return () => {}
    },
  }
  const exit = run(['--size', 'large', '--port', '0'], io)
  await Promise.race([
    banner,
    exit.then((code) => {
      throw new Error(`serve ended with ${code} before its banner: ${lines.join('\n')}`)
    }),
  ])
  // The served dataset: `createTaxonomy` shares one per seed and size within a process.
  const taxonomy = createTaxonomy({ size: 'large' })
  expect(countBuiltTopics(taxonomy)).toBe(0)

  // The counter reads the served data: one lookup builds that sub-discipline's topics, not all.
  const url = /listening on (\S+) /.exec(lines[0]!)![1]!
  const sub = taxonomy.subDisciplines.find((candidate) => taxonomy.topicCountOf(candidate) > 0)!
  const response = await fetch(`${url}/api/v2/sub_disciplines/${sub.slug}`, {
    headers: { authorization: 'Bearer taxonomy-mock-key' },
  })
  expect(response.status).toBe(200)
  expect(countBuiltTopics(taxonomy)).toBeGreaterThanOrEqual(taxonomy.topicCountOf(sub))
  expect(countBuiltTopics(taxonomy)).toBeLessThan(SIZES.large.topics)

  stop(1, 'SIGTERM')
  expect(await exit).toBe(0)
})
