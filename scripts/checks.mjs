// The checks named on the command line, side by side (each tool is single-threaded); fails if any does.
// npm test runs them all (scripts/test.mjs): the others start with the build and run beside the test files. The build
// only emits (tsc --noCheck): `types` checks src and test, and an install from git (`prepare`) must not fail on the
// types of a newer dependency in range.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// What eslint, prettier and tsc keep of their last run, to look again only at what changed (types: 24 s of CPU cold, 7 s
// warm). One folder per checkout: worktrees may share a node_modules (a link), and a cache shared by them holds only the
// files of whichever ran last.
const CACHE = join('node_modules', '.cache', 'checks', createHash('sha256').update(ROOT).digest('hex').slice(0, 12));

export const CHECKS = {
  eslint: ['eslint', ['--cache', '--cache-location', join(CACHE, 'eslint/'), '.']],
  prettier: ['prettier', ['--check', '--cache', '--cache-location', join(CACHE, 'prettier'), '.']],
  types: ['tsc', ['--noEmit', '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', join(CACHE, 'types.tsbuildinfo')]],
  // The option reference and exit-code lists in the docs, as the tables write them (`npm run docs`).
  docs: [process.execPath, ['--import', 'tsx', 'scripts/gen-docs.ts', '--check']],
  build: ['npm', ['run', 'build']],
  structure: ['node', ['scripts/structure.mjs']],
};

/**
 * Runs one check; resolves to its exit code and, when `quiet`, what it printed (for the caller to show when it fails).
 */
export function check(name, { quiet = false } = {}) {
  const [cmd, args] = CHECKS[name];
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      // The tools of node_modules/.bin, as npm run finds them, for a run by plain node too.
      env: { ...process.env, PATH: [join(ROOT, 'node_modules', '.bin'), process.env.PATH].join(delimiter) },
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      shell: process.platform === 'win32',
    });
    const output = [];
    child.stdout?.on('data', (d) => output.push(d));
    child.stderr?.on('data', (d) => output.push(d));
    child.on('error', (err) => resolve({ name, code: 1, output: `checks: ${cmd}: ${err.message}\n` }));
    child.on('close', (code) => resolve({ name, code: code ?? 1, output: Buffer.concat(output).toString() }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !(n in CHECKS));
  if (!names.length || unknown.length) {
    console.error(`checks: name some of ${Object.keys(CHECKS).join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`);
    process.exit(2);
  }
  const results = await Promise.all(names.map((n) => check(n)));
  for (const r of results) if (r.output) console.error(r.output.trimEnd());
  process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
}
