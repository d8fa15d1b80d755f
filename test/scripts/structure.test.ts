import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

const script = join(import.meta.dirname, '../../scripts/structure.mjs');

function structure(files: Record<string, string>) {
  const src = mkdtempSync(join(tmpdir(), 'awb-structure-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), text);
    }
    return spawnSync(process.execPath, [script, '--draw', src], { encoding: 'utf8' });
  } finally {
    rmSync(src, { recursive: true, force: true });
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
