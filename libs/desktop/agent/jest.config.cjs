module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'desktop-agent',
  rootDir: __dirname,
};
