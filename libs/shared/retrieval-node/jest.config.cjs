module.exports = {
  ...require('../../../jest.preset.cjs'),
  displayName: 'shared-retrieval-node',
  rootDir: __dirname,
};
