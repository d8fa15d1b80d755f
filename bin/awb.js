#!/usr/bin/env node
// CommonJS (bin/package.json): where Node can require() an ES module (20.19 and
// later), the few modules `awb --help` needs load synchronously, without
// starting the asynchronous ESM loader, a tenth of its start-up (bench/README.md).
// Older Nodes import() it.
'use strict';
const { setFlagsFromString } = require('node:v8');

const cli = process.features.require_module ? Promise.resolve(require('../dist/cli.js')) : import('../dist/cli.js');

cli
  .then(({ main }) => {
    // Set once, before any command runs (after the CLI's own modules load, so
    // `--help` does not pay for it): grow the heap by 5% over what survives a
    // full GC instead of V8's adaptive factor (up to 4x), so the multi-MB strings
    // each row leaves behind are collected before they pile up (bench/README.md).
    setFlagsFromString('--heap-growing-percent=5');
    return main(process.argv);
  })
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
