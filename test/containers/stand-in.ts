import { execFileSync } from 'node:child_process'
import { copyFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { podman } from '../helpers/podman.js'

/** The absolute paths of the shared libraries an executable links, its dynamic loader included (ldd). */
function linkedLibraries(executable: string): string[] {
  const lines = execFileSync('ldd', [executable], { encoding: 'utf8' })
  return [...lines.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1]!)
}

/**
 * Builds an image FROM scratch holding executables (`{ [path in the image]: path here }`) and the
 * libraries they link, at the paths the loader finds them: the layout of an official image, with
 * nothing else in it (no shell). `lines` are more Containerfile lines (ENV, CMD).
 */
export async function buildFromScratch(
  tag: string,
  executables: Readonly<Record<string, string>>,
  lines: readonly string[],
  dir: string,
): Promise<void> {
  const rootfs = join(dir, 'rootfs')
  const place = (source: string, target: string) => {
    mkdirSync(join(rootfs, dirname(target)), { recursive: true })
    copyFileSync(source, join(rootfs, target))
    chmodSync(join(rootfs, target), 0o755)
  }
  for (const [target, source] of Object.entries(executables)) {
    place(source, target)
    for (const library of linkedLibraries(source)) place(library, library)
  }
  writeFileSync(
    join(dir, 'Containerfile'),
    ['FROM scratch', 'COPY rootfs/ /', ...lines, ''].join('\n'),
  )
  await podman(['build', '--format', 'docker', '--quiet', '-t', tag, dir])
}
