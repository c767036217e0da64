import { docBlocks } from './readme.js'

/** A package an install line names: `msw@2` is `{ name: 'msw', major: '2', spec: 'msw@2' }`. */
export interface NamedPackage {
  readonly name: string
  /** The version the line pins, if it pins one (the recipes pin majors). */
  readonly major: string | undefined
  /** The word as the line has it, which npm is given. */
  readonly spec: string
}

/** The packages a page's `npm i -D` line names, in its order. */
export function installLineOf(page: string): NamedPackage[] {
  const line = docBlocks(page)
    .flatMap((block) => block.code.split('\n'))
    .find((candidate) => candidate.startsWith('npm i -D '))
  if (line === undefined) throw new Error(`${page} has no npm i -D line`)
  return line
    .slice('npm i -D '.length)
    .trim()
    .split(/\s+/)
    .map((spec) => {
      const at = spec.lastIndexOf('@')
      return at > 0
        ? { name: spec.slice(0, at), major: spec.slice(at + 1), spec }
        : { name: spec, major: undefined, spec }
    })
}

/**
 * What one `npm install` gets to install every package the pages' lines name, as they name it,
 * `taxonomy-mock` being the packed tarball. Pages that share a project must name a package the
 * same way (`msw@2` on one and `msw` on another would need projects of their own), and a package a
 * line names is not one of `alreadyThere` (what the user's project has before the recipe).
 */
export function installSpecsOf(
  pages: readonly string[],
  tarball: string,
  alreadyThere: readonly string[] = [],
): string[] {
  const specs = new Map<string, { spec: string; page: string }>()
  for (const page of pages) {
    for (const { name, spec } of installLineOf(page)) {
      const named = specs.get(name)
      if (named !== undefined && named.spec !== spec)
        throw new Error(
          `${named.page} installs ${named.spec} and ${page} ${spec}: one project cannot run both`,
        )
      if (alreadyThere.some((there) => there.startsWith(`${name}@`)))
        throw new Error(`${page} installs ${spec}, which the project has already`)
      specs.set(name, { spec, page })
    }
  }
  if (!specs.has('taxonomy-mock'))
    throw new Error(`none of ${pages.join(', ')} installs taxonomy-mock`)
  return [...specs]
    .map(([name, { spec }]) => (name === 'taxonomy-mock' ? tarball : spec))
    .concat(alreadyThere)
}
