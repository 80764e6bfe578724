module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-local-api',
  rootDir: __dirname,
};
