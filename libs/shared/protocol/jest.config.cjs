module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-protocol',
  rootDir: __dirname,
};
