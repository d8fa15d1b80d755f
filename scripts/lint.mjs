// eslint and prettier side by side (each is single-threaded), with their caches in node_modules/.cache: npm run lint fails if either does.
import { spawn } from 'node:child_process';

const run = (cmd, args) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('close', (code) => resolve(code ?? 1));
  });

const codes = await Promise.all([
  run('eslint', ['--cache', '--cache-location', 'node_modules/.cache/eslint/', '.']),
  run('prettier', ['--check', '--cache', '.']),
]);
process.exitCode = codes.some((c) => c !== 0) ? 1 : 0;
