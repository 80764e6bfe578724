module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-vault-core',
  rootDir: __dirname,
};
