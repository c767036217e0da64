// jest.setup.js: the taxonomy API answered in every test, from seed-42 data.
import { setupServer } from 'msw/node'
import { createHandlers } from 'taxonomy-mock/msw'

export const server = setupServer(...createHandlers({ seed: 42, size: 'small' }))

beforeAll(() => server.listen())
afterEach(() => server.resetHandlers())
afterAll(() => server.close())
