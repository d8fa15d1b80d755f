// The checks named on the command line, side by side (each tool is single-threaded); fails if any does.
// npm test runs them all before the tests: the build then skips its own type check, which `types` does for src and test.
import { spawn } from 'node:child_process';

const CHECKS = {
  eslint: ['eslint', ['--cache', '--cache-location', 'node_modules/.cache/eslint/', '.']],
  prettier: ['prettier', ['--check', '--cache', '.']],
  types: ['tsc', ['--noEmit', '-p', 'tsconfig.json']],
  build: ['npm', ['run', 'build', '--', '--noCheck']],
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
