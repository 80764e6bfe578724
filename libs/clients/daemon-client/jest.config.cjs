module.exports = { ...require('../../../jest.preset.cjs'), displayName: 'daemon-client', rootDir: __dirname };
