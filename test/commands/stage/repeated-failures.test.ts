/*
 * Failures that retries would only repeat stop the run: the same 500 for attempt after attempt before
 * any answer (a parameter or model name the server chokes on), or connections cut the same way (a proxy's
 * idle limit). Failures that differ, heal (502) or follow answers (a 500 the row's own) do not.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { makeDataset, tempDirs } from '../../support/dataset.js';
import { inferArgs } from '../../support/harness.js';
import { chatServer, json } from '../../support/raw-server.js';

const dirs = tempDirs('repeated-failures');
after(() => dirs.cleanup());

describe('awb infer against a server that fails every request the same way', () => {
  it('stops in one line, exit 3, naming the model option', async () => {
    const dir = await dirs.make();
    const ds = await makeDataset(dir, 12, ['mcp']);
    const { url } = await chatServer((req, res) => {
      json(res, 500, { error: { message: 'unsupported parameter for this engine' } });
    });
    const r = await runAwb(inferArgs(url, ds.dir, join(dir, 'p.jsonl'), ['--max-retries', '2', '-c', '2']));
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('awb:'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /unsupported parameter for this engine.*--model-name/);
  });
});
