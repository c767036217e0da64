// Jest in ESM mode over the built package, as a consumer runs it (test/matchers/jest.test.ts).
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['**/*.jest.js'],
  setupFilesAfterEnv: ['<rootDir>/jest.setup.js'],
}
