// Run before every test file (vitest.config.ts `setupFiles`), whether or not its modules are shared.
import { afterEach } from 'vitest'
import { afterEachSteps } from '../helpers/after-each.js'

afterEach(async () => {
  for (const step of afterEachSteps) await step()
})
