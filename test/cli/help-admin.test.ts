import { expect, it } from 'vitest'
import { HELP } from '../../src/cli/help.js'
import { openApiDocument } from '../../src/http/openapi.js'

it('lists every admin route the OpenAPI document describes, with each of its methods', () => {
  const help = HELP.replace(/\s+/g, ' ')
  const admin = Object.entries(openApiDocument().paths).filter(([path]) =>
    path.startsWith('/__admin/'),
  )
  expect(admin.map(([path]) => path)).toContain('/__admin/sessions/{id}/data')
  for (const [path, item] of admin) {
    const shown = path.replace('{id}', 'ID')
    const methods = Object.keys(item)
      .filter((key) => ['get', 'put', 'post', 'delete', 'patch'].includes(key))
      .map((method) => method.toUpperCase())
    // `PUT|GET|DELETE /__admin/sessions/ID/data`: the route as written, not a longer one.
    const listed = [...help.matchAll(/([A-Z]+(?:\|[A-Z]+)*) (\/__admin\/[^\s,;()]+)/g)]
      .filter((match) => match[2] === shown)
      .flatMap((match) => match[1]!.split('|'))
    expect(listed.sort(), path).toEqual(methods.sort())
  }
})
