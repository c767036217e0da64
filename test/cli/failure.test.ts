import { expect, it } from 'vitest'
import { reportFailure } from '../../src/cli/failure.js'
import type { CliIo } from '../../src/cli/io.js'
import { RuntimeError } from '../../src/cli/runtime-error.js'
import { UsageError } from '../../src/cli/usage-error.js'

/** The lines `reportFailure` prints for `error`, and its exit code. */
function report(error: unknown): { code: number; lines: string[] } {
  const lines: string[] = []
  const io: Partial<CliIo> = { stderr: (line) => void lines.push(line) }
  const code = reportFailure(error, io as CliIo)
  return { code, lines }
}

it('prints every failure as one line, its line breaks as spaces and its escapes as U+FFFD', () => {
  expect(report(new RuntimeError('answered 500: \u001b[31mred\r\nline2'))).toEqual({
    code: 1,
    lines: ['taxonomy-mock: answered 500: \ufffd[31mred line2'],
  })
  expect(report(new UsageError('--host a\u2028b\u009b'))).toEqual({
    code: 2,
    lines: ['taxonomy-mock: --host a b\ufffd'],
  })
  // Another error is cut to its first line, as before.
  expect(report(new TypeError('bad \u001b]0;title\u0007\n    at x.js:1'))).toEqual({
    code: 1,
    lines: ['taxonomy-mock: unexpected failure: bad \ufffd]0;title\ufffd'],
  })
})
