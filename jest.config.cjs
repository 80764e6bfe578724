// One Jest run over every project that has a jest.config.cjs (libs, apps, tools, tests).
const fs = require('node:fs');
const path = require('node:path');

function projectConfigs(dir, depth) {
  const here = path.join(__dirname, dir);
  if (!fs.existsSync(here)) return [];
  const own = path.join(here, 'jest.config.cjs');
  if (depth === 0) return fs.existsSync(own) ? [own] : [];
  return fs
    .readdirSync(here, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => projectConfigs(path.join(dir, entry.name), depth - 1));
}

module.exports = {
  projects: [
    ...projectConfigs('libs', 2),
    ...projectConfigs('apps', 1),
    ...projectConfigs('tools', 0),
    ...projectConfigs('tests', 0),
  ],
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.cjs'],
};
