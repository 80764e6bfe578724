module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-vault-ipc',
  rootDir: __dirname,
};
