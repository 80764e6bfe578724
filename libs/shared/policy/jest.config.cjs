module.exports = { ...require('../../../jest.preset.cjs'), displayName: 'shared-policy', rootDir: __dirname };
