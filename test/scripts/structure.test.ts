import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { structure as checkStructure } from '../../scripts/structure.mjs';

const NOTE = '# x\n\n**Owns:** x.\n\n**Risks:** x.\n\n**Tests:** `test/x.test.ts`.\n';

/**
 * Runs the check on a src/ of `files` (beside a test/x.test.ts); unless `notes` is false, every folder without a
 * README.md in `files` gets a note that passes.
 */
function structure(files: Record<string, string>, notes = true) {
  const root = mkdtempSync(join(tmpdir(), 'awb-structure-'));
  const src = join(root, 'src');
  const all: Record<string, string> = { ...files };
  if (notes) {
    for (const path of Object.keys(files)) {
      for (let dir = dirname(path); ; dir = dirname(dir)) {
        all[join(dir, 'README.md')] ??= NOTE;
        if (dir === '.') break;
      }
    }
  }
  try {
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test/x.test.ts'), '');
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), text);
    }
    // As the script's run would show it: exit status, stderr's lines, the drawing on stdout.
    const { errors, drawing } = checkStructure(src);
    return { status: errors.length ? 1 : 0, stderr: errors.join('\n'), stdout: drawing.join('\n') };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('a circle through type imports between two subsystems fails, naming the imports', () => {
  const run = structure({
    'core/a/index.ts': "import type { B } from '../b/index.js';\nexport type A = B;\n",
    'core/b/index.ts': "export type { A as B } from '../a/index.js';\n",
  });
  assert.equal(run.status, 1);
  assert.ok(run.stderr.includes('core/a/index.ts → core/b/index.ts'), run.stderr);
});

test("a subsystem's faults.ts is a leaf of the fault union: the union importing it makes no circle", () => {
  const run = structure({
    'core/faults.ts': "import type { AFault } from './a/faults.js';\nexport type Fault = AFault;\n",
    'core/errors.ts': "import type { Fault } from './faults.js';\nexport type F = Fault;\n",
    'core/a/faults.ts': "export type AFault = { kind: 'x' };\n",
    'core/a/index.ts': "import type { F } from '../errors.js';\nexport type G = F;\n",
  });
  assert.equal(run.status, 0, run.stderr);
  // Drawn above what it imports.
  assert.ok(run.stdout.indexOf('core/a →') < run.stdout.indexOf('core/errors →'), run.stdout);
});

test('a faults.ts that imports its own subsystem closes a circle', () => {
  const run = structure({
    'core/faults.ts': "import type { AFault } from './a/faults.js';\nexport type Fault = AFault;\n",
    'core/a/faults.ts': "import type { Mode } from './mode.js';\nexport type AFault = { kind: 'x'; mode: Mode };\n",
    'core/a/mode.ts': "import type { Fault } from '../faults.js';\nexport type Mode = Fault['kind'];\n",
  });
  assert.equal(run.status, 1);
});

test('a folder of src/ or of core/ without a note fails, naming it', () => {
  const run = structure({ 'README.md': NOTE, 'core/README.md': NOTE, 'core/a/index.ts': 'export const a = 1;\n' }, false);
  assert.equal(run.status, 1);
  assert.ok(run.stderr.includes('src/core/a: no README.md'), run.stderr);
});

test("a folder deeper down may go without a note of its own when its parent's note names it", () => {
  const files = { 'README.md': NOTE, 'core/README.md': NOTE, 'core/a/index.ts': '', 'core/a/b/c.ts': '' };
  const named = structure({ ...files, 'core/a/README.md': NOTE.replace('**Owns:** x.', '**Owns:** `b/`: c.') }, false);
  assert.equal(named.status, 0, named.stderr);
  const unnamed = structure({ ...files, 'core/a/README.md': NOTE }, false);
  assert.equal(unnamed.status, 1);
  assert.ok(unnamed.stderr.includes("src/core/a/b: no README.md, and its parent's note does not name it"), unnamed.stderr);
  assert.equal(structure({ ...files, 'core/a/README.md': NOTE }).status, 0, 'or with a note of its own');
});

test('a note without its tests, or naming a test that does not exist, fails', () => {
  const thin = structure({ 'core/a/index.ts': '', 'core/a/README.md': '# a\n\n**Owns:** a.\n\n**Risks:** none.\n' });
  assert.equal(thin.status, 1);
  assert.ok(thin.stderr.includes('src/core/a/README.md: no **Tests:** section'), thin.stderr);
  const stale = structure({ 'core/a/index.ts': '', 'core/a/README.md': NOTE.replace('test/x.test.ts', 'test/gone.test.ts') });
  assert.equal(stale.status, 1);
  assert.ok(stale.stderr.includes('src/core/a/README.md: names test/gone.test.ts, which does not exist'), stale.stderr);
});

test('a folder of more than 15 .ts files fails', () => {
  const files = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`render/f${i}.ts`, '']));
  const run = structure(files);
  assert.equal(run.status, 1);
  assert.ok(run.stderr.includes('src/render: 16 .ts files, more than 15'), run.stderr);
  assert.equal(structure(Object.fromEntries(Object.entries(files).slice(1))).status, 0);
});

test('the script run as npm test runs it: exit 1 and the problems on stderr; exit 0 and the drawing with --draw', () => {
  const script = join(import.meta.dirname, '../../scripts/structure.mjs');
  const root = mkdtempSync(join(tmpdir(), 'awb-structure-'));
  try {
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test/x.test.ts'), '');
    mkdirSync(join(root, 'src/core/a'), { recursive: true });
    writeFileSync(join(root, 'src/core/a/index.ts'), '');
    for (const dir of ['src', 'src/core']) writeFileSync(join(root, dir, 'README.md'), NOTE);
    const bad = spawnSync(process.execPath, [script, join(root, 'src')], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.ok(bad.stderr.includes('structure: src/core/a: no README.md'), bad.stderr);
    writeFileSync(join(root, 'src/core/a/README.md'), NOTE);
    const good = spawnSync(process.execPath, [script, '--draw', join(root, 'src')], { encoding: 'utf8' });
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /core\/a → ∅/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
