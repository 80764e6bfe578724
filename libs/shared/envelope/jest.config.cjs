module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-envelope',
  rootDir: __dirname,
};
