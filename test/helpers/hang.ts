/** How long a wait for an event may take before it is called a hang (a busy machine is slow, not hung). */
export const HANG_MS = 60_000

/**
 * The same for a browser action or wait (Playwright's own default is 30 s): with every core taken
 * by other work, a Storybook manager page waited longer than that on one click.
 */
export const PAGE_HANG_MS = 120_000

/**
 * The same for the test runners the recipes use (Vitest and Jest stop a test at 5 s by default),
 * given on the command line: the recipes' own files stay as written. Beside CI's other jobs, a
 * recipe's test once took longer than 5 s.
 */
export const VITEST_HANG_FLAGS = [`--testTimeout=${HANG_MS}`, `--hookTimeout=${HANG_MS}`]
export const JEST_HANG_FLAGS = [`--testTimeout=${HANG_MS}`]
