// .storybook/preview.ts: every story gets the taxonomy API, from seed-42 data.
import { mswLoader } from 'msw-storybook-addon/csf3'
import { createHandlers } from 'taxonomy-mock/msw'

export default {
  loaders: [mswLoader()],
  parameters: {
    msw: createHandlers({ seed: 42, size: 'small' }),
  },
}
