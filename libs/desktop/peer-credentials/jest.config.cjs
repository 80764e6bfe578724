module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-peer-credentials',
  rootDir: __dirname,
};
