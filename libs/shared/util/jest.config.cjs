module.exports = { ...require('../../../jest.preset.cjs'), displayName: 'shared-util', rootDir: __dirname };
