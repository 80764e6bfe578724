module.exports = { ...require('../jest.preset.cjs'), displayName: 'tests', rootDir: __dirname };
