/* An output that is a FIFO nobody reads: a signal still ends the run, leaving nothing beside it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startAwb } from '../../support/cli.js';
import { makeDataset, stackLines, tempDirs, waitFor, worldReply } from '../../support/dataset.js';
import { inferArgs, useServers } from '../../support/harness.js';

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
    // The endpoint check comes first; the output is opened after it.
    await waitFor(() => s.stats.modelListRequests + s.stats.requests > 0, run.exited, 'the endpoint check');
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGTERM');
    const killer = setTimeout(() => run.child.kill('SIGKILL'), 20_000);
    const r = await run.exited;
    clearTimeout(killer);
    assert.equal(r.signal, null, 'awb had to be killed');
    assert.equal(r.code, 130, r.stderr);
    assert.deepEqual(stackLines(r.stderr), [], r.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['data', 'rows.fifo']);
  });
});
