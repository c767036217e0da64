// `--watch` when `--data` is a symbolic link, as containers and deploy tools mount data.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { toFixtureJson } from '../../src/core/serialize.js'
import { patchTaxonomy } from '../../src/core/patch.js'
import { auth, base, patched, startWatching } from '../helpers/watch.js'
import { until } from '../helpers/clock.js'

const csStatus = async (url: string) => (await fetch(`${url}/api/v2/disciplines/cs`, auth)).status

/**
 * The layout Kubernetes gives a mounted ConfigMap: `data.json -> ..data/data.json`, and `..data` a
 * link to a timestamped folder, swapped for a new folder by renaming a new link over it.
 */
function createConfigMap(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'taxonomy-mock-configmap-'))
  let version = 0
  let current: string | undefined
  const publish = (next: string) => {
    const folder = `..2026_01_01_00_00_00.${version++}`
    mkdirSync(join(dir, folder))
    writeFileSync(join(dir, folder, 'data.json'), next)
    symlinkSync(folder, join(dir, '..data_tmp'))
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'))
    if (current !== undefined) rmSync(join(dir, current), { recursive: true })
    current = folder
  }
  publish(text)
  symlinkSync('..data/data.json', join(dir, 'data.json'))
  return { file: join(dir, 'data.json'), publish }
}

it('follows a Kubernetes ConfigMap mount: reloads when the ..data link is swapped to a new folder', async () => {
  const configMap = createConfigMap(toFixtureJson(base))
  const { run, url } = await startWatching(configMap.file)
  expect(await csStatus(url)).toBe(404)
  configMap.publish(toFixtureJson(patched))
  await run.waitFor(/reloaded --data file/)
  expect(await csStatus(url)).toBe(200)
})

it('follows a chain of links into other folders: reloads when the target is replaced by a rename', async () => {
  const root = mkdtempSync(join(tmpdir(), 'taxonomy-mock-links-'))
  for (const folder of ['mount', 'releases', 'store']) mkdirSync(join(root, folder))
  const target = join(root, 'store', 'taxonomy.json')
  writeFileSync(target, toFixtureJson(base))
  // mount/data.json -> ../releases/current.json -> <root>/store/taxonomy.json
  symlinkSync(target, join(root, 'releases', 'current.json'))
  symlinkSync('../releases/current.json', join(root, 'mount', 'data.json'))
  const { run, url } = await startWatching(join(root, 'mount', 'data.json'))
  expect(await csStatus(url)).toBe(404)
  writeFileSync(`${target}.new`, toFixtureJson(patched))
  renameSync(`${target}.new`, target)
  await run.waitFor(/reloaded --data file/)
  expect(await csStatus(url)).toBe(200)
})

it('follows a link into another folder: reloads when the target is rewritten in place', async () => {
  const root = mkdtempSync(join(tmpdir(), 'taxonomy-mock-links-'))
  for (const folder of ['mount', 'store']) mkdirSync(join(root, folder))
  writeFileSync(join(root, 'store', 'taxonomy.json'), toFixtureJson(base))
  symlinkSync('../store/taxonomy.json', join(root, 'mount', 'data.json'))
  const { run, url } = await startWatching(join(root, 'mount', 'data.json'))
  expect(await csStatus(url)).toBe(404)
  writeFileSync(join(root, 'store', 'taxonomy.json'), toFixtureJson(patched))
  await run.waitFor(/reloaded --data file/)
  expect(await csStatus(url)).toBe(200)
})

it('follows a link that is pointed at another file', async () => {
  const root = mkdtempSync(join(tmpdir(), 'taxonomy-mock-links-'))
  for (const folder of ['mount', 'old', 'new']) mkdirSync(join(root, folder))
  writeFileSync(join(root, 'old', 'taxonomy.json'), toFixtureJson(base))
  writeFileSync(join(root, 'new', 'taxonomy.json'), toFixtureJson(patched))
  symlinkSync('../old/taxonomy.json', join(root, 'mount', 'data.json'))
  const { run, url } = await startWatching(join(root, 'mount', 'data.json'))
  expect(await csStatus(url)).toBe(404)
  symlinkSync('../new/taxonomy.json', join(root, 'mount', 'next.json'))
  renameSync(join(root, 'mount', 'next.json'), join(root, 'mount', 'data.json'))
  await run.waitFor(/reloaded --data file/)
  expect(await csStatus(url)).toBe(200)
  // The chain now runs through new/: a change there is seen.
  writeFileSync(join(root, 'new', 'taxonomy.json'), toFixtureJson(base))
  await waitFor(async () => (await csStatus(url)) === 404)
})

const waitFor = (check: () => Promise<boolean>) => until(check, 'the data served')

it('stress: 50 ConfigMap swaps under load; every answer is one whole dataset, and the last one wins', async () => {
  // Version k stamps a discipline, its first domain and its first sub-discipline: an answer mixing
  // two datasets would carry two versions.
  const discipline = base.disciplines[0]!
  const domain = base.domains.find((d) => d.id === discipline.domain_ids[0])!
  const sub = base.subDisciplines.find((s) => s.discipline_ids.includes(discipline.id))!
  const versions = Array.from({ length: 51 }, (_, k) =>
    toFixtureJson(
      patchTaxonomy(base, {
        domains: [{ slug: domain.slug, name: `Domain version ${k}` }],
        disciplines: [{ slug: discipline.slug, description: `Version ${k}.` }],
        sub_disciplines: [{ slug: sub.slug, name: `Sub-discipline version ${k}` }],
      }),
    ),
  )
  const versionOf = (body: string) => {
    const record = JSON.parse(body) as {
      description: string
      domains: { name: string }[]
      sub_disciplines: { name: string }[]
    }
    const stamps = [
      /^Version (\d+)\.$/.exec(record.description)?.[1],
      record.domains.map((d) => /^Domain version (\d+)$/.exec(d.name)?.[1]).find(Boolean),
      record.sub_disciplines
        .map((s) => /^Sub-discipline version (\d+)$/.exec(s.name)?.[1])
        .find(Boolean),
    ]
    expect(new Set(stamps).size, body).toBe(1)
    expect(stamps[0], body).toBeDefined()
    return Number(stamps[0])
  }

  const configMap = createConfigMap(versions[0]!)
  const { run, url } = await startWatching(configMap.file)
  const last = versions.length - 1
  let swapping = true
  const swapper = (async () => {
    for (let k = 1; k <= last; k++) {
      await new Promise((resolve) => setTimeout(resolve, [40, 160, 320][k % 3]))
      configMap.publish(versions[k]!)
    }
    swapping = false
  })()
  const seen = new Set<number>()
  const client = async () => {
    // Data only moves forward: one client never sees an older version after a newer one.
    let newest = 0
    const ask = async () => {
      const response = await fetch(`${url}/api/v2/disciplines/${discipline.slug}`, auth)
      expect(response.status).toBe(200)
      const version = versionOf(await response.text())
      expect(version).toBeGreaterThanOrEqual(newest)
      newest = version
      seen.add(version)
    }
    while (swapping) await ask()
    await until(async () => (await ask(), newest === last), `version ${last} served`)
  }
  await Promise.all([swapper, client(), client(), client(), client()])
  expect(seen.has(last)).toBe(true)
  // Reloads happened while requests flowed, not only at the end: a version between the first and
  // the last was served. (How many depends on how fast the machine reloads.)
  expect([...seen].some((version) => version > 0 && version < last)).toBe(true)
  expect(run.stdout.filter((line) => !/reloaded --data file/.test(line)).slice(1)).toEqual([])
})
