module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-retrieval',
  rootDir: __dirname,
};
