import fc from 'fast-check'
import { expect, it } from 'vitest'
import { formatLogLine } from '../../src/cli/banner.js'
import { toLogPath } from '../../src/server/log-path.js'

it('writes the milliseconds of a log line with one decimal, as toFixed(1) rounds them', () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 3_600_000, noNaN: true }), (ms) => {
      const line = formatLogLine({ method: 'GET', path: '/api/v2/disciplines/x', status: 200, ms })
      const written = Number(/ (\d+\.\d)ms$/.exec(line)![1])
      expect(Math.abs(written - ms)).toBeLessThanOrEqual(0.05 + 1e-9)
    }),
    { numRuns: 5_000 },
  )
  expect(formatLogLine({ method: 'HEAD', path: '/', status: 404, ms: 12.34 })).toBe(
    'HEAD / 404 12.3ms',
  )
  expect(formatLogLine({ method: 'GET', path: '/', status: 200, ms: 0 })).toBe('GET / 200 0.0ms')
})

it('makes every log line ASCII, whatever the path: its bytes are its length, which is how the log queues it', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH'),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.integer({ min: 100, max: 599 }),
      fc.double({ min: 0, max: 3_600_000, noNaN: true }),
      (method, target, status, ms) => {
        const line = formatLogLine({ method, path: toLogPath(target), status, ms })
        expect(Buffer.byteLength(line)).toBe(line.length)
      },
    ),
    { numRuns: 2_000 },
  )
})
