// One Jest run over every project (each project's own jest.config.cjs).
module.exports = {
  projects: ['<rootDir>/libs/*/*/jest.config.cjs', '<rootDir>/apps/*/jest.config.cjs', '<rootDir>/tools/jest.config.cjs', '<rootDir>/tests/jest.config.cjs'],
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.cjs'],
};
