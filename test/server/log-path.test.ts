import { expect, it } from 'vitest'
import { toLogPath } from '../../src/server/log-path.js'

it('escapes control and non-ASCII characters, so a path cannot forge a log line', () => {
  expect(toLogPath('/a\nGET /fake 200\r\x1b[31m\u00ff')).toBe(
    '/a\\x0aGET /fake 200\\x0d\\x1b[31m\\xff',
  )
})

it('cuts long paths and says how long they were', () => {
  const logged = toLogPath(`/${'x'.repeat(10_000)}`)
  expect(logged.length).toBeLessThan(260)
  expect(logged).toMatch(/\.\.\.\(10001 chars\)$/)
})
