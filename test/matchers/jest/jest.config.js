// Jest in ESM mode over the built package, as a consumer runs it (test/matchers/jest.test.ts).
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['**/*.jest.js'],
  setupFilesAfterEnv: ['<rootDir>/jest.setup.js'],
  // A hang catcher, not Jest's 5 s: a busy machine may take several times as long as a quiet one.
  testTimeout: 120_000,
}
