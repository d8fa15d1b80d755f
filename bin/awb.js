#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

const { main } = await import('../dist/cli.js');

// Set once, before any command runs (after the CLI's own modules load, so
// `--help` does not pay for it): grow the heap by 5% over what survives a
// full GC instead of V8's adaptive factor (up to 4x), so the multi-MB strings
// each row leaves behind are collected before they pile up (bench/README.md).
setFlagsFromString('--heap-growing-percent=5');

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
