// .storybook/main.ts: MSW's addon, the kit's addon (toolbar, data menu, panel), and the folder where
// `npx msw init public` put the worker script.
import type { StorybookConfig } from '@storybook/react-vite'

const config: StorybookConfig = {
  framework: '@storybook/react-vite',
  stories: ['../src/**/*.stories.tsx'],
  addons: ['msw-storybook-addon', 'taxonomy-mock/storybook'],
  staticDirs: ['../public'],
}
export default config
