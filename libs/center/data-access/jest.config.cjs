module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'center-data-access',
  rootDir: __dirname,
};
