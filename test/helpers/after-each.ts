/**
 * What helpers undo after every test (kill the child processes they started, close their servers,
 * put the real clock back). A helper adds its step when it is loaded; `test/setup/after-each.ts`
 * runs the steps after each test of every file. A hook registered at a helper's import would
 * belong to the first file that loaded it: where files share their modules (`isolate: false`), the
 * next files would get no clean-up at all.
 */
export const afterEachSteps = new Set<() => unknown>()
