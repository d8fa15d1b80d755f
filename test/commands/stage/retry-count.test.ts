/*
 * `--max-retries N` means at most N + 1 attempts per request, whatever went wrong, streamed or
 * not: a malformed 200 (empty, a web page, cut JSON, no choices) is one more kind of failure,
 * retried by the pool within the same count, never asked again on top of it by infer or judge.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { makeDataset, readRowsOf, tempDirs, writePredictions } from '../../support/dataset.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { chatServer } from '../../support/raw-server.js';

const dirs = tempDirs('retry-count');
after(() => dirs.cleanup());

describe('infer and judge send a malformed reply at most --max-retries + 1 times per request', { concurrency: 2 }, () => {
  for (const stream of [false, true])
    it(`${stream ? 'with' : 'without'} --stream: a web page for every answer is asked twice with --max-retries 1, not three times`, async () => {
      const dir = await dirs.make();
      const ds = await makeDataset(dir, 2, ['mcp']);
      const { url, seen } = await chatServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>');
      });
      const posts = () => seen.filter((s) => s.startsWith('POST')).length;
      const flags = ['--max-retries', '1', ...(stream ? ['--stream'] : [])];
      const r = await runAwb(inferArgs(url, ds.dir, join(dir, 'p.jsonl'), flags));
      assert.equal(r.code, 1, r.stderr);
      const rows = await readRowsOf(join(dir, 'p.jsonl'));
      assert.equal(rows.length, 2);
      assert.ok(rows.every((row) => row.gen === '' && typeof row.error === 'string'));
      assert.equal(posts(), 4);

      const preds = join(dir, 'pred.jsonl');
      await writePredictions(ds, preds);
      const j = await runAwb(judgeArgs(url, preds, join(dir, 'j.jsonl'), flags));
      assert.equal(j.code, 1, j.stderr);
      const judged = await readRowsOf(join(dir, 'j.jsonl'));
      assert.equal(judged.length, 2);
      assert.ok(judged.every((row) => row.judge_attempts === 1));
      assert.equal(posts(), 8, 'each judge request twice, whatever --parse-attempts');
    });
});
