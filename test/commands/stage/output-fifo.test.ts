/* An output that is a FIFO nobody reads: a signal still ends the run, leaving nothing beside it. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb, startAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, stackLines, tempDirs, waitFor, worldReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { worded } from '../../../src/commands/words/index.js';
import { RUN_WORDS } from '../../../src/commands/words/stage/run.js';

const temps = tempDirs('outputs');
after(() => temps.cleanup());
const server = useServers();

function mkfifo(path: string): void {
  assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
}

describe('awb infer -o FIFO with no reader', () => {
  it('ends on SIGTERM with exit 130, one line, and leaves no lock or manifest', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 3, ['mcp']);
    const fifo = join(dir, 'rows.fifo');
    mkfifo(fifo);
    const s = await server({ reply: worldReply });
    const run = startAwb(inferArgs(s.url, data.dir, fifo));
    // Told once awb waits for a reader (after the endpoint check): the signal comes during that wait, however slow the machine.
    const waiting = RUN_WORDS.waitingForReader('infer', fifo);
    await waitFor(() => run.stderr().includes(waiting), run.exited, 'the wait for a reader');
    run.child.kill('SIGTERM');
    const killer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
    const r = await run.exited;
    clearTimeout(killer);
    assert.equal(r.signal, null, 'awb had to be killed');
    assert.equal(r.code, 130, r.stderr);
    assert.ok(r.stderr.includes(worded({ kind: 'stream-never-read', path: fifo }, 'awb').message), r.stderr);
    assert.deepEqual(stackLines(r.stderr), [], r.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['data', 'rows.fifo']);
  });
});

describe('awb infer and judge -o FIFO with a reader', () => {
  it('write every row through it, and print no next command (a FIFO keeps nothing to judge or resume from)', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 3, ['mcp']);
    const s = await server({ reply: worldReply });
    const read = async (fifo: string, args: string[]) => {
      mkfifo(fifo);
      const reader = spawn('cat', [fifo]);
      const got: Buffer[] = [];
      reader.stdout.on('data', (b: Buffer) => got.push(b));
      const closed = new Promise((r) => reader.on('close', r));
      const r = await runAwb(args);
      await closed;
      return { r, rows: Buffer.concat(got).toString('utf8').split('\n').filter(Boolean) };
    };
    const infer = await read(join(dir, 'p.fifo'), inferArgs(s.url, data.dir, join(dir, 'p.fifo')));
    assert.equal(infer.r.code, 0, infer.r.stderr);
    assert.equal(infer.rows.length, 3);
    assert.doesNotMatch(infer.r.stderr, /judge it with|--predictions/);
    // Its reader was there before it: no wait to tell.
    assert.ok(!infer.r.stderr.includes(RUN_WORDS.waitingForReader('infer', join(dir, 'p.fifo'))), infer.r.stderr);
    const predictions = join(dir, 'p.jsonl');
    writeFileSync(predictions, infer.rows.join('\n') + '\n');
    const j = await server({ reply: judgeReply });
    const judge = await read(join(dir, 'j.fifo'), judgeArgs(j.url, predictions, join(dir, 'j.fifo')));
    assert.equal(judge.r.code, 0, judge.r.stderr);
    assert.equal(judge.rows.length, 3);
    assert.doesNotMatch(judge.r.stderr, /score it with|awb score/);
  });
});
