import { expect, it } from 'vitest'
import { parseContractArgs } from '../../src/cli/contract-args.js'
import { SERVICE_LIMITS } from '../../src/contract/options.js'

// The CLI checks verify/record flags before the library does: both take the same bounds.
const base = [
  '--target',
  'https://staging.example.test',
  '--discipline',
  'history',
  '--api-key',
  'a-key-of-10',
]
const FLAGS = {
  crawl: '--crawl',
  maxRequests: '--max-requests',
  timeout: '--timeout',
  rate: '--rate',
} as const

it.each(Object.entries(FLAGS))(
  'takes %s from its library bounds, and nothing past them',
  (option, flag) => {
    const { min, max } = SERVICE_LIMITS[option as keyof typeof FLAGS]
    const parse = (value: number) => parseContractArgs('verify', [...base, flag, String(value)], {})
    expect(() => parse(min)).not.toThrow()
    expect(() => parse(max)).not.toThrow()
    expect(() => parse(max + 1)).toThrow(flag)
    if (min > 0) expect(() => parse(min / 2)).toThrow(flag)
  },
)
