/*
 * The package as `npx agentworldbench` gets it: packed from a copy of the
 * tree whose dist/ still holds the output of a module deleted since (the
 * build must empty dist/ first), unpacked, and run. Nothing is installed from a
 * registry: the unpacked copy borrows this tree's node_modules.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { tempDirs } from '../support/dataset.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const temps = tempDirs('package');
after(() => temps.cleanup());

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

describe('npm pack', () => {
  it('ships a fresh build (no file of a deleted module), the rubrics and the report assets, and the unpacked copy runs', async () => {
    const tree = await temps.make();
    for (const entry of [
      'package.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'README.md',
      'LICENSE',
      'bin',
      'src',
      'assets',
      'rubrics',
      'fixtures',
    ])
      await cp(join(ROOT, entry), join(tree, entry), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    // What a build of an older tree leaves behind.
    await mkdir(join(tree, 'dist', 'core', 'gone'), { recursive: true });
    await writeFile(join(tree, 'dist', 'core', 'gone', 'index.js'), 'export const stale = true;\n');

    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tree], { cwd: tree, maxBuffer: 1 << 26 });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const shipped = packed!.files.map((f) => f.path);

    const sources = new Set((await filesUnder(join(ROOT, 'src'))).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '')));
    const stale = shipped.filter((f) => f.startsWith('dist/') && f.endsWith('.js') && !sources.has(f.slice('dist/'.length, -'.js'.length)));
    assert.deepEqual(stale, [], 'dist/ files without a source are shipped');
    for (const f of [
      'bin/awb.js',
      'dist/cli.js',
      'rubrics/terminal.md',
      'rubrics/turing.md',
      'assets/report/page.js',
      'README.md',
      'LICENSE',
    ])
      assert.ok(shipped.includes(f), `${f} is not shipped`);
    assert.deepEqual(
      shipped.filter((f) => f.startsWith('src/') || f.startsWith('test/')),
      [],
    );

    const unpacked = await temps.make();
    await run('tar', ['xzf', join(tree, packed!.filename), '-C', unpacked]);
    const pkg = join(unpacked, 'package');
    await symlink(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    const help = await run(process.execPath, [join(pkg, 'bin', 'awb.js'), '--help']);
    assert.match(help.stdout, /infer/);
    // The bundled rubrics are found from the unpacked copy: a dry run builds every judge request (rows with a generation).
    const data = await readFile(join(pkg, 'fixtures', 'data', 'terminal_test.jsonl'), 'utf8');
    const predictions = join(unpacked, 'predictions.jsonl');
    const rows = data.split('\n').filter((l) => l.trim());
    await writeFile(predictions, rows.map((l) => `${JSON.stringify({ ...(JSON.parse(l) as object), gen: 'a prediction' })}\n`).join(''));
    const dry = await run(process.execPath, [
      join(pkg, 'bin', 'awb.js'),
      'judge',
      '--predictions',
      predictions,
      '--judge-base-url',
      'http://127.0.0.1:9/v1',
      '--judge-model',
      'judge',
      '--dry-run',
      '--format',
      'json',
      '-o',
      join(unpacked, 'judged.jsonl'),
    ]);
    const counted = JSON.parse(dry.stdout) as { stage: string; requests: number };
    assert.equal(counted.stage, 'judge');
    assert.equal(counted.requests, rows.length);

    // The tarball installs as the README says (npm install FILE.tgz), and its awb runs.
    const app = join(unpacked, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), '{"name": "app", "private": true}\n');
    // The dependencies as a registry install leaves them, copied (hard links where the file system allows): with
    // them in place npm needs no registry, and the test touches no network (--offline).
    const modules = await realpath(join(ROOT, 'node_modules'));
    await run('cp', ['-al', modules, join(app, 'node_modules')]).catch(() =>
      cp(modules, join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(tree, packed!.filename)], { cwd: app, maxBuffer: 1 << 26 });
    const version = await run(join(app, 'node_modules', '.bin', 'awb'), ['--version'], { cwd: app });
    const { version: expected } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), expected);
  });
});
