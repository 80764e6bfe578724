module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-envelope-node',
  rootDir: __dirname,
};
