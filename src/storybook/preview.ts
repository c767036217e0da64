import { addons } from 'storybook/preview-api'
import {
  DATA_CHOICES,
  SCENARIO_CHOICES,
  isDataChoice,
  isScenarioChoice,
  type DataChoice,
  type ScenarioChoice,
} from '../msw/choices.js'
import type { CreateHandlersOptions } from '../msw/handlers.js'
import {
  createSwitchableMock,
  putInFront,
  removeHandlers,
  type HandlerList,
  type MockState,
  type SwitchableMock,
} from '../msw/switchable.js'
import { formatReceived } from '../core/size.js'
import { DATA_GLOBAL, JOURNAL_EVENT, SCENARIO_GLOBAL, type JournalMessage } from './shared.js'

// The preview half of the addon, which Storybook loads into the story's frame: the toolbar's
// globals, and a beforeEach that gives each story (each render) its own kit in front of the
// worker msw-storybook-addon runs.

/** `parameters.taxonomy` of a story, a file or the preview: the state the toolbar overrides. */
export interface TaxonomyParameters {
  /** A choice's name (`'flaky'`), a kind's name or a scenario object. @default 'usual' */
  readonly scenario?: MockState['scenario']
  /** A data choice's name (`'unicode-names'`) or a patch. @default 'base' */
  readonly data?: MockState['data']
  /**
   * The kit's options: data (`seed`, `size`), `apiKeys`, `baseUrl`... (its `scenario` and `patch`
   * are the two fields above). @default {}
   */
  readonly options?: CreateHandlersOptions
}

const menu = (table: Record<string, { readonly title: string }>) => [
  // Unset: the story's own `parameters.taxonomy`.
  { type: 'reset', title: "Story's own" },
  ...Object.entries(table).map(([value, { title }]) => ({ value, title, right: value })),
]

export const globalTypes = {
  [SCENARIO_GLOBAL]: {
    description: 'Taxonomy scenario',
    toolbar: {
      title: 'Taxonomy',
      icon: 'lightning',
      items: menu(SCENARIO_CHOICES),
      dynamicTitle: true,
    },
  },
  [DATA_GLOBAL]: {
    description: 'Taxonomy data',
    toolbar: { title: 'Data', icon: 'database', items: menu(DATA_CHOICES), dynamicTitle: true },
  },
}

/** The worker msw-storybook-addon put in the context, as this addon uses it. */
interface Context {
  readonly id: string
  readonly globals: Record<string, unknown>
  readonly parameters: { readonly taxonomy?: TaxonomyParameters }
  readonly msw?: HandlerList
}

// The kit of the story rendered now: a story's handlers are taken out before the next one's go in.
let current: SwitchableMock | undefined

/** A toolbar global's value, checked: a URL can carry anything. */
function globalChoice<T extends string>(
  context: Context,
  name: string,
  isChoice: (value: unknown) => value is T,
): T | undefined {
  const value = context.globals[name]
  if (value === undefined || value === null || value === '') return undefined
  if (isChoice(value)) return value
  throw new TypeError(
    `taxonomy-mock/storybook: the global ${name} must name a menu entry; received ${formatReceived(value)}`,
  )
}

const describe = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

export async function beforeEach(context: Context): Promise<(() => void) | undefined> {
  const own = context.parameters.taxonomy
  const scenario = globalChoice<ScenarioChoice>(context, SCENARIO_GLOBAL, isScenarioChoice)
  const data = globalChoice<DataChoice>(context, DATA_GLOBAL, isDataChoice)
  // A story without parameters.taxonomy keeps its own handlers until a toolbar entry is picked.
  if (own === undefined && scenario === undefined && data === undefined) return undefined
  const worker = context.msw
  if (worker === undefined) {
    throw new Error(
      "taxonomy-mock/storybook needs msw-storybook-addon's worker: list 'msw-storybook-addon' before 'taxonomy-mock/storybook' in addons",
    )
  }
  const mock = createSwitchableMock(own?.options)
  mock.use({ scenario: scenario ?? own?.scenario, data: data ?? own?.data })
  putInFront(worker, mock.handlers, current?.handlers)
  current = mock
  const channel = addons.getChannel()
  const publish = () => {
    // A request of a story switched away from tells the panel nothing.
    if (current !== mock) return
    const message: JournalMessage = {
      storyId: context.id,
      scenario: `${scenario ?? describe(own?.scenario ?? 'usual')} (${scenario ? 'toolbar' : 'story'})`,
      data: `${data ?? describe(own?.data ?? 'base')} (${data ? 'toolbar' : 'story'})`,
      entries: mock.journal(),
    }
    channel.emit(JOURNAL_EVENT, message)
  }
  const stop = mock.onJournal(publish)
  publish()
  return () => {
    stop()
    if (current !== mock) return
    removeHandlers(worker, mock.handlers)
    current = undefined
  }
}
