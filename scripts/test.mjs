// npm test's test files, compiled once. Under `--import tsx` every test process pays about 1 s of CPU for the loader
// (its hooks thread and resolution) before a test runs: 146 files, about a fifth of the suite's CPU. Here esbuild (the
// compiler tsx runs) turns every .ts file into JavaScript in a copy of the project, and node runs the copy's files
// plainly. The copy holds every file the tests read (sources included), so paths taken from import.meta.url resolve as
// in the project; node_modules and dist are linked. One file while editing: `node --import tsx --test FILE`.
// The test processes get a temporary folder of their own (TMPDIR) beside the copy, in one folder made for the run and
// removed when it ends, also when it fails or is stopped: the folders the tests make are not left in the machine's.
// `node scripts/test.mjs [FILE.test.ts …]` builds (the tests run dist/) and runs the files named; without any, it is npm
// test: the build, then every file of test/ (FIRST alone, the others in GROUPS) with the other checks side by side,
// since the files leave a core idle at times.
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { CHECKS, check } from './checks.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINKED = new Set(['node_modules', 'dist']);
// Not read by any test: version control, outputs and caches.
const SKIPPED = new Set(['.git', '.bench', 'results']);

async function filesUnder(dir, suffix) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(suffix)).map((e) => join(e.parentPath, e.name));
}

// Each in a process of its own, started first, in this order (node --test starts the files in the order given, three
// at a time): the files that mostly wait, so their waits overlap the others' work, and the longest, so that none of
// them is left running alone at the end.
const FIRST = [
  'test/commands/stage/rate-limit.test.ts', // paced by rate limits' "minutes" of 1–2 s: about 30 s, most of it waiting
  'test/commands/action.test.ts', // action.yml's three runs one after the other: the longest file
  'test/commands/scale-out-docs.test.ts', // the most CPU: the documented workflows' awb processes
  'test/commands/stage/faults.test.ts', // latencies, hangs cut by --timeout, Retry-After
  'test/commands/stage/stream.test.ts', // a proxy cutting connections silent for 1.5 s, a 4 s generation
  'test/commands/stage/new-user.test.ts', // seventeen awb processes, each waiting on its servers
  'test/commands/stage/batch.test.ts', // a Batch API server's polling
  'test/commands/stage/cache-order.test.ts', // replies held until enough requests are in flight
  'test/render/color.test.ts', // runs on a pseudo-terminal
  'test/commands/package.test.ts', // npm pack and an install from the tarball
  'test/render/report-browser.test.ts', // chromium, as the four files below: heavy, never the last ones
  'test/render/report-layout-browser.test.ts',
  'test/render/report-compare-browser.test.ts',
  'test/render/report-drift-browser.test.ts',
];

// Every other file runs in one of GROUPS processes, several one after the other, each file's tests in a describe named
// after it (its hooks apply to it alone): a process of its own cost a file 1–2 s of CPU for node, the runner and awb's
// modules loaded and compiled again (the 129 files: 351 s of CPU, 147 s in one process). A test leaves the process as it
// found it (environment, handlers, timers), as runAwb's in-process runs already do. Files go to groups in turn by name.
const GROUPS = 8;

// Every check but the build, which the tests need first.
const BESIDE = Object.keys(CHECKS).filter((n) => n !== 'build');

const named = process.argv.slice(2).map((f) => relative(ROOT, resolve(f)));
// Named as the user wrote it, not as the copy's JavaScript the runner would name.
const missing = named.filter((f) => f.startsWith('..') || !f.endsWith('.test.ts') || !existsSync(join(ROOT, f)));
if (missing.length) {
  console.error(`test: not a test file of this project: ${missing.join(', ')} (name test/**/*.test.ts files)`);
  process.exit(2);
}
const all = named.length ? named : (await filesUnder(join(ROOT, 'test'), '.test.ts')).map((f) => relative(ROOT, f)).sort();
const gone = named.length ? [] : FIRST.filter((f) => !all.includes(f));
if (gone.length) {
  console.error(`test: scripts/test.mjs's FIRST names files that are gone: ${gone.join(', ')}`);
  process.exit(2);
}
const rest = all.filter((f) => !FIRST.includes(f));
const groups = Array.from({ length: Math.min(GROUPS, rest.length) }, (_, g) => rest.filter((_, i) => i % GROUPS === g));
// The other checks start with the build (none reads dist/), which runs always: the tests run dist/, and files named
// after an edit of src/ must not test an older one.
const checks = named.length ? Promise.resolve([]) : Promise.all(BESIDE.map((n) => check(n, { quiet: true })));
/** Prints the checks that failed, after what the build or the tests printed; true if any did. */
async function checksFailed() {
  const failed = (await checks).filter((c) => c.code !== 0);
  for (const c of failed) console.error(`\ncheck ${c.name} failed:\n${c.output.trimEnd()}`);
  return failed.length > 0;
}
if ((await check('build')).code !== 0) {
  await checksFailed();
  process.exit(1);
}

// A folder per run, so two suites (two worktrees, or one twice) never share one.
const RUN = await mkdtemp(join(tmpdir(), 'awb-test-'));
const COPY = join(RUN, 'project');
const TMP = join(RUN, 'tmp');
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
let child;
let stopped;
for (const sig of Object.keys(SIGNALS)) {
  process.on(sig, () => {
    stopped ??= sig;
    // The runner ends its test processes on a signal (a terminal's Ctrl-C has reached them all already); before it
    // starts, the copy is finished and removed (below) rather than removed while esbuild writes into it.
    child?.kill(sig);
  });
}
function end() {
  try {
    rmSync(RUN, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    console.error(`test: could not remove ${RUN}: ${err.message}`);
  }
  if (stopped) process.exit(128 + SIGNALS[stopped]);
}

try {
  await mkdir(COPY);
  await mkdir(TMP);
  for (const entry of await readdir(ROOT)) {
    if (SKIPPED.has(entry) || entry.endsWith('.tgz')) continue;
    if (LINKED.has(entry)) await symlink(join(ROOT, entry), join(COPY, entry), 'dir');
    else await cp(join(ROOT, entry), join(COPY, entry), { recursive: true });
  }
  // Every TypeScript file of the copy: the tests import bench/ and scripts/ modules too.
  const sources = (await filesUnder(COPY, '.ts')).filter((f) => !f.endsWith('.d.ts'));
  await build({
    entryPoints: sources,
    outdir: COPY,
    outbase: COPY,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'error',
  });

  const js = (f) => f.replace(/\.ts$/, '.js');
  const grouped = [];
  for (const [g, files] of groups.entries()) {
    const name = join('test', '.groups', `group-${g + 1}.test.js`);
    const imports = files.map(
      (f) => `describe(${JSON.stringify(f)}, async () => { await import(${JSON.stringify(pathToFileURL(join(COPY, js(f))).href)}); });`,
    );
    await mkdir(join(COPY, 'test', '.groups'), { recursive: true });
    await writeFile(join(COPY, name), [`import { describe } from 'node:test';`, ...imports, ''].join('\n'));
    grouped.push(name);
  }
  const tests = [...FIRST.filter((f) => all.includes(f)).map(js), ...grouped];
  if (!stopped) {
    child = spawn(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=3', '--test-reporter=spec', ...tests], {
      cwd: COPY,
      env: { ...process.env, TMPDIR: TMP },
      stdio: 'inherit',
    });
    const [code, signal] = await new Promise((done) => child.on('close', (...end) => done(end)));
    process.exitCode = code !== 0 || signal ? 1 : 0;
  }
} finally {
  end();
}
if (await checksFailed()) process.exitCode = 1;
else if (!named.length) console.log(`\nchecks passed: build, ${BESIDE.join(', ')}`);
