module.exports = { ...require('../../jest.preset.cjs'), displayName: 'center', rootDir: __dirname };
