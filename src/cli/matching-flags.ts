import type { AnswerOptions } from '../http/options.js'
import { toWholeNumberOrText } from './flag-values.js'

/**
 * `--unauthorized-status N`, `--not-found-status N` and `--order O` as the library options
 * `statuses` and `order`, which make the mock answer as a real service does (`taxonomy-mock
 * verify` names the values); the library judges them.
 */
export function toMatchingOptions(
  values: Readonly<Record<string, unknown>>,
): Pick<AnswerOptions, 'statuses' | 'order'> {
  const unauthorized = toWholeNumberOrText(values['unauthorized-status'] as string | undefined)
  const notFound = toWholeNumberOrText(values['not-found-status'] as string | undefined)
  const order = values.order
  return {
    ...(unauthorized !== undefined || notFound !== undefined
      ? {
          statuses: {
            ...(unauthorized !== undefined ? { unauthorized } : {}),
            ...(notFound !== undefined ? { notFound } : {}),
          },
        }
      : {}),
    ...(order !== undefined ? { order } : {}),
  } as Pick<AnswerOptions, 'statuses' | 'order'>
}
