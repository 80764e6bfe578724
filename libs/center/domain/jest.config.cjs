module.exports = { ...require('../../../jest.preset.cjs'), displayName: 'center-domain', rootDir: __dirname };
