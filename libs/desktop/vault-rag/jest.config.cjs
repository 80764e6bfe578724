module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-vault-rag',
  rootDir: __dirname,
};
