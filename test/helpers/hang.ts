/** How long a wait for an event may take before it is called a hang (a busy machine is slow, not hung). */
export const HANG_MS = 60_000

/**
 * The same for a browser action or wait (Playwright's own default is 30 s): with every core taken
 * by other work, a Storybook manager page waited longer than that on one click.
 */
export const PAGE_HANG_MS = 120_000
