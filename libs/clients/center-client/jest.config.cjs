module.exports = { ...require('../../../jest.preset.cjs'), displayName: 'center-client', rootDir: __dirname };
