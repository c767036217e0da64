// `--workers` with `--store`: a worker started in place of a dead one while the store is gone
// cannot join it, and dies too. The next ones wait longer each time, and each line says why.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { childPids } from '../helpers/child-pids.js'
import { spawnCli } from '../helpers/cli.js'
import { until } from '../helpers/clock.js'
import { startRedis, type RedisProcess } from '../helpers/redis.js'

const URL_LINE = /listening on (https?:\/\/\S+)/
const WORKERS_LINE = /2 workers serve the port/

let redis: RedisProcess
beforeAll(async () => {
  redis = await startRedis()
}, 20_000)
afterAll(() => redis?.stop())

it('starts a worker in place of one that died before it served only after a wait, growing, with the reason; closes connections no worker takes', async () => {
  const run = spawnCli(['--port', '0', '--quiet', '--workers', '2', '--store', redis.url])
  const url = URL_LINE.exec(await run.waitFor(URL_LINE, 20_000))![1]!
  await run.waitFor(WORKERS_LINE, 20_000)
  await redis.stop()
  for (const worker of await childPids(run.child.pid!)) process.kill(worker, 'SIGKILL')
  // The killed workers had served: the next start at once. They cannot reach the store, and die:
  // the one after the first waits 0.1 s, the next 0.2 s.
  const died = /^taxonomy-mock: worker \d+ exited \(code 1: (.+)\); starting another in (\S+) s$/
  await until(
    () => run.stderr.filter((line) => died.test(line)).length >= 2,
    'two workers that could not join the store',
  )
  const lines = run.stderr.filter((line) => died.test(line))
  expect(lines.map((line) => died.exec(line)![2])).toEqual(['0.1', '0.2'])
  expect(died.exec(lines[0]!)![1]).toMatch(/session store/)
  // No worker serves: a connection is closed after its bound, not kept waiting for good.
  await expect(fetch(`${url}/__health`)).rejects.toThrow('fetch failed')
  run.child.kill('SIGTERM')
  expect(await run.exit).toBe(0)
}, 120_000)
