module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-vault',
  rootDir: __dirname,
};
