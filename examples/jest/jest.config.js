// jest.config.js: taxonomy-mock is ESM, so Jest runs in ESM mode
// (node --experimental-vm-modules node_modules/jest/bin/jest.js).
export default {
  testEnvironment: 'node',
  transform: {},
  setupFilesAfterEnv: ['<rootDir>/jest.setup.js'],
  // In this repository the example runs against the built package; an installed copy needs no mapping.
  moduleNameMapper: { '^taxonomy-mock/msw$': '<rootDir>/../../dist/msw/index.js' },
}
