#!/usr/bin/env node
// Launcher for the `arslan` CLI: runs the bundle built by `npm run build`
// (npm ci builds it through the root `prepare` script).
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const bundle = path.join(__dirname, '..', '..', '..', 'dist', 'cli', 'arslan.cjs');
if (!fs.existsSync(bundle)) {
  process.stderr.write('arslan: the CLI is not built; run `npm run build` at the repository root\n');
  process.exit(1);
}
require(bundle);
