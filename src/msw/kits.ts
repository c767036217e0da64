import { createResolver, type Resolver } from '../http/resolver.js'
import { isInScope, type RequestScope } from '../http/base-url.js'

/** A `createHandlers()` call: its resolver (data, keys, options) and the requests it answers. */
export interface Kit {
  readonly scope: RequestScope
  readonly resolver: Resolver
}

/** The latest kits, newest last; old ones are let go (a test file makes a few, a Storybook one per story). */
const kits: Kit[] = []
const MAX_KITS = 32
let fallback: Resolver | undefined

/** Remembers a kit, so scenario helpers answer with its data, keys and options. */
export function registerKit(kit: Kit): void {
  kits.push(kit)
  if (kits.length > MAX_KITS) kits.shift()
}

/**
 * The resolver a helper answers with: the newest kit whose scope takes this URL (as the kit's own
 * handlers would have answered it), or the defaults when no `createHandlers()` was made.
 */
export function findKitResolver(url: string): Resolver {
  for (let i = kits.length - 1; i >= 0; i--) {
    const { scope, resolver } = kits[i]!
    if (isInScope(url, scope)) return resolver
  }
  fallback ??= createResolver()
  return fallback
}
