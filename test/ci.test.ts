/*
 * awb run from a CI job or a shell script: pipes rather than a terminal,
 * readers that go away, exit codes a script branches on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AWB_BIN, awbEnv } from './support/cli.js';
import { keyOf, makeDataset, readRowsOf, tempDirs, worldReply } from './support/dataset.js';
import { inferArgs, useServers } from './support/harness.js';

const temps = tempDirs('ci');
after(() => temps.cleanup());
const server = useServers();

describe('a reader of stderr that goes away', () => {
  it('does not end the run: every row is written, the lock removed, exit 0', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 8, ['terminal']);
    const s = await server({ reply: worldReply, latencyMs: 150 });
    const out = join(dir, 'p.jsonl');
    // `awb infer … 2>&1 | head -1`: the pipe is closed after the first message, with rows still to send and progress lines due.
    const child = spawn(process.execPath, [AWB_BIN, ...inferArgs(s.url, data.dir, out, ['-c', '2']).filter((a) => a !== '--no-progress')], {
      env: awbEnv({ AWB_PROGRESS_INTERVAL: '0.05' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.once('data', () => child.stderr!.destroy());
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (c) => resolve(c));
    });
    assert.equal(code, 0);
    const rows = await readRowsOf(out);
    assert.equal(new Set(rows.map(keyOf)).size, 8);
    assert.equal(rows.length, 8);
    assert.deepEqual((await readdir(dir)).sort(), ['data', 'p.jsonl', 'p.jsonl.manifest.json']);
  });
});
