// The checks named on the command line, side by side (each tool is single-threaded); fails if any does.
// npm test runs them all before the tests. The build only emits (tsc --noCheck): `types` checks src and test, and an
// install from git (`prepare`) must not fail on the types of a newer dependency in range.
import { spawn } from 'node:child_process';

const CHECKS = {
  eslint: ['eslint', ['--cache', '--cache-location', 'node_modules/.cache/eslint/', '.']],
  prettier: ['prettier', ['--check', '--cache', '.']],
  types: ['tsc', ['--noEmit', '-p', 'tsconfig.json']],
  // The option reference and exit-code lists in the docs, as the tables write them (`npm run docs`).
  docs: [process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts', '--check']],
  build: ['npm', ['run', 'build']],
  structure: ['node', ['scripts/structure.mjs']],
};

const run = ([cmd, args]) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', (err) => {
      console.error(`checks: ${cmd}: ${err.message}`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in CHECKS));
if (!names.length || unknown.length) {
  console.error(`checks: name some of ${Object.keys(CHECKS).join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`);
  process.exit(2);
}
const codes = await Promise.all(names.map((n) => run(CHECKS[n])));
process.exitCode = codes.some((c) => c !== 0) ? 1 : 0;
