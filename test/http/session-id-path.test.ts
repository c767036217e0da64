import { expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http/fetch.js'

const MALFORMED = JSON.stringify({
  error:
    'Malformed request: a session id is 1-200 letters, digits or . _ ~ : @ - characters, not . or ..',
})

it('answers 400 to a session id in a path that does not percent-decode, as to any other bad id', async () => {
  const handle = createFetchHandler({ seed: 42, size: 'small', adminKey: 'admin-key-1234' })
  const headers = {
    authorization: 'Bearer taxonomy-mock-key',
    'x-taxonomy-mock-admin-key': 'admin-key-1234',
  }
  for (const path of [
    '/__admin/sessions/a%ZZ',
    '/__admin/sessions/%/scenario',
    '/__sessions/a%ZZ/api/v2/disciplines/pharmacology',
    '/__admin/sessions/a%2Fb',
  ]) {
    const answer = await handle(new Request(`http://x${path}`, { headers }))
    expect(`${answer.status} ${await answer.text()}`, path).toBe(`400 ${MALFORMED}`)
  }
})
