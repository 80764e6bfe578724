module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-vault-mcp',
  rootDir: __dirname,
};
