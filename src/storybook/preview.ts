import { addons } from 'storybook/preview-api'
import { FixtureError, summarizeIssues } from '../core/fixture-error.js'
import { OptionError } from '../core/option-error.js'
import { formatReceived } from '../core/size.js'
import { DATA_CHOICES, SCENARIO_CHOICES } from '../msw/choices.js'
import type { CreateHandlersOptions } from '../msw/handlers.js'
import {
  createEndableMock,
  putInFront,
  removeHandlers,
  type HandlerList,
  type SwitchableMock,
} from '../msw/switchable.js'
import { DATA_GLOBAL, JOURNAL_EVENT, SCENARIO_GLOBAL, type JournalMessage } from './shared.js'
import { storyKit, type StoryKit, type TaxonomyParameters } from './story-state.js'

export type { TaxonomyParameters } from './story-state.js'

// The preview half of the addon, which Storybook loads into the story's frame: the toolbar's
// globals, and a beforeEach that gives each story (each render) its own kit in front of the
// worker msw-storybook-addon runs.

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

/** The story's context as this addon reads it, with the worker msw-storybook-addon put in it. */
interface Context {
  readonly id: string
  /** The story's file's title (`'Lookup'`) and the story's name (`'Outage'`). */
  readonly title: string
  readonly name: string
  /** `'docs'` where a docs page renders the story among its file's others. */
  readonly viewMode?: string
  readonly globals: Record<string, unknown>
  readonly parameters: {
    readonly taxonomy?: TaxonomyParameters | null
    /** The kit's options where `parameters.taxonomy` gives none, such as a toolbar entry's. */
    readonly taxonomyOptions?: CreateHandlersOptions
  }
  readonly msw?: HandlerList
}

// The kit of the story rendered now: a story's handlers are taken out before the next one's go in.
let current: SwitchableMock | undefined

// The docs pages warned about, by title: once each, not once per story on them.
const warnedDocsPages = new Set<string>()

/**
 * A docs page renders its stories together in one frame, and one worker serves the frame: it
 * cannot tell which story sent a request, so the kit put in front last answers them all.
 */
function warnSharedFrame(context: Context) {
  if (warnedDocsPages.has(context.title)) return
  warnedDocsPages.add(context.title)
  console.warn(
    `taxonomy-mock/storybook: "${context.title} / ${context.name}" is answered by the kit on a docs page, where the stories render in one frame and one worker answers them all: the story rendered last answers every story's requests, with its state and counters. To give each story its own frame and kit, set parameters: { docs: { story: { inline: false } } } in the default export of ${context.title}'s stories file (or in the preview).`,
  )
}

/**
 * Puts the kit in its state. Only the story's own fields can be refused (a toolbar value names a
 * menu entry), so a refusal names them where the story wrote them, not as a bare `scenario`, nor
 * a patch's problems as a bare "Invalid patch".
 */
function useStoryState(mock: SwitchableMock, { state, dataPlace }: StoryKit): void {
  try {
    mock.use(state)
  } catch (error) {
    // A patch that does not apply to this story's data: named where it was chosen.
    if (error instanceof FixtureError)
      throw noValidPatch(`${dataPlace} is no valid patch for this story's data`, error)
    if (!(error instanceof OptionError)) throw error
    throw new TypeError(
      `taxonomy-mock/storybook: \`parameters.taxonomy.${error.option}\` ${error.requirement}`,
    )
  }
}

/** The addon's refusal of a patch: `refusal`, then the issues `error` found. */
function noValidPatch(refusal: string, error: FixtureError): TypeError {
  return new TypeError(
    `taxonomy-mock/storybook: ${refusal}: ${summarizeIssues(error.issues, error.issueCount)}`,
  )
}

/** Where the kit's options were written: the story's own, else the preview's defaults. */
function optionsPlace(taxonomy: TaxonomyParameters | null | undefined): string {
  return taxonomy?.options != null ? 'parameters.taxonomy.options' : 'parameters.taxonomyOptions'
}

/**
 * The story's kit. Its options are refused under the parameter that holds them: a bare "`seed` must
 * be ..." or "Invalid patch" leaves the story's author to guess between the story and the preview.
 */
function createStoryMock(
  options: CreateHandlersOptions | undefined,
  place: string,
  ended: AbortSignal,
): SwitchableMock {
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  )
    throw new TypeError(
      `taxonomy-mock/storybook: \`${place}\` must be an object; received ${formatReceived(options)}`,
    )
  try {
    return createEndableMock(options, ended)
  } catch (error) {
    if (error instanceof FixtureError)
      throw noValidPatch(`\`${place}.patch\` is no valid patch`, error)
    if (!(error instanceof OptionError)) throw error
    // A dotted option joins with a dot; a quoted one (`["se ed"]`) follows the place as it is.
    const option = error.option.startsWith('[') ? error.option : `.${error.option}`
    throw new TypeError(`taxonomy-mock/storybook: \`${place}${option}\` ${error.requirement}`)
  }
}

export async function beforeEach(context: Context): Promise<(() => void) | undefined> {
  const { taxonomy, taxonomyOptions } = context.parameters
  const kit = storyKit(taxonomy, context.globals, taxonomyOptions)
  // A story without parameters.taxonomy keeps its own handlers until a toolbar entry is picked.
  if (kit === undefined) return undefined
  if (context.viewMode === 'docs') warnSharedFrame(context)
  const worker = context.msw
  if (worker === undefined) {
    throw new Error(
      "taxonomy-mock/storybook needs msw-storybook-addon's worker: list 'msw-storybook-addon' before 'taxonomy-mock/storybook' in addons",
    )
  }
  // Aborted as the story is left: a hang of its requests ends then, not when the frame goes.
  const left = new AbortController()
  const mock = createStoryMock(kit.options, optionsPlace(taxonomy), left.signal)
  useStoryState(mock, kit)
  putInFront(worker, mock.handlers, current?.handlers)
  current = mock
  const channel = addons.getChannel()
  const publish = () => {
    // A request of a story switched away from tells the panel nothing.
    if (current !== mock) return
    const message: JournalMessage = {
      storyId: context.id,
      scenario: kit.scenarioLabel,
      data: kit.dataLabel,
      entries: mock.journal(),
    }
    channel.emit(JOURNAL_EVENT, message)
  }
  const stop = mock.onJournal(publish)
  publish()
  return () => {
    stop()
    left.abort()
    if (current !== mock) return
    removeHandlers(worker, mock.handlers)
    current = undefined
  }
}
