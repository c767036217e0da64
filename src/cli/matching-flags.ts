import {
  NESTED_ORDERS,
  isErrorStatus,
  type AnswerOptions,
  type NestedOrder,
} from '../http/options.js'
import { UsageError } from './usage-error.js'

/**
 * `--unauthorized-status N`, `--not-found-status N` and `--order O`: the options that make the mock
 * answer as a real service does (`taxonomy-mock verify` names the values). Judged by the library's
 * own predicates, so the CLI accepts exactly what `statuses` and `order` accept.
 */
export function parseMatchingFlags(
  values: Readonly<Record<string, unknown>>,
): Pick<AnswerOptions, 'statuses' | 'order'> {
  const unauthorized = parseStatus(values['unauthorized-status'], '--unauthorized-status')
  const notFound = parseStatus(values['not-found-status'], '--not-found-status')
  const order = values.order as string | undefined
  if (order !== undefined && !NESTED_ORDERS.includes(order as NestedOrder)) {
    throw new UsageError(
      `--order must be name, id or fixture; received ${JSON.stringify(order.slice(0, 40))}`,
    )
  }
  return {
    ...(unauthorized !== undefined || notFound !== undefined
      ? {
          statuses: {
            ...(unauthorized !== undefined ? { unauthorized } : {}),
            ...(notFound !== undefined ? { notFound } : {}),
          },
        }
      : {}),
    ...(order !== undefined ? { order: order as NestedOrder } : {}),
  }
}

function parseStatus(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined
  const text = String(value)
  const status = /^\d{3}$/.test(text) ? Number(text) : Number.NaN
  if (!isErrorStatus(status)) {
    throw new UsageError(
      `${flag} must be a 4xx status other than 405, 407, 408, 413, 429 and 431; received ${JSON.stringify(text.slice(0, 40))}`,
    )
  }
  return status
}
