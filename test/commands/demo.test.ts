/*
 * `npm run demo` prints each command it runs; pasted in the folder it ran
 * from, each must work: `node bin/awb.js …` where no awb is installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The demo keeps its outputs for the user to read: here they go to a folder the test removes.
const tmp = mkdtempSync(join(tmpdir(), 'awb-demo-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

it('the demo shows the commands it runs as they run from its folder (node bin/awb.js, no awb installed)', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    cwd: root,
    // Only node's own folder on PATH: no awb there.
    env: { PATH: dirname(process.execPath), HOME: process.env.HOME, NO_COLOR: '1', TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, err);
  const shown = err.split('\n').filter((l) => l.startsWith('$ '));
  assert.deepEqual(
    shown.map((l) => l.split(' ').slice(1, 4).join(' ')),
    ['node bin/awb.js infer', 'node bin/awb.js judge', 'node bin/awb.js score'],
  );
  assert.doesNotMatch(err, /^\$ awb /m);
});
