module.exports = { ...require('../../jest.preset.cjs'), displayName: 'daemon', rootDir: __dirname };
