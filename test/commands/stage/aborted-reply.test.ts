/*
 * A generation the server aborted (SGLang's and some vLLM versions' `finish_reason: "abort"`, its
 * content partial or empty) is no answer: a failed attempt, tried again within --max-retries, and
 * the row fails naming the abort once they are spent; never written as a prediction or parsed as a judgment.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, readRowsOf, rowMarker, tempDirs, worldReply, writePredictions } from '../../support/dataset.js';
import { lastUserText, requestHash, type ReplyFn } from '../../support/openai-server.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('aborted');
after(() => temps.cleanup());
const server = useServers();

/**
 * Answers as `reply` does, but aborts the first attempt of every request, and every attempt of
 * the row marked `always`, keeping the text it would have sent (what a partial generation holds).
 */
function aborting(reply: ReplyFn, always: string): ReplyFn {
  const seen = new Set<string>();
  return async (req, ctx) => {
    const text = await reply(req, ctx);
    const first = !seen.has(requestHash(req));
    seen.add(requestHash(req));
    if (!first && !lastUserText(req).includes(always)) return text;
    return { content: typeof text === 'string' ? text : text.content, finish_reason: 'abort' };
  };
}

describe('finish_reason "abort"', { concurrency: 2 }, () => {
  for (const stream of [false, true]) {
    it(`infer${stream ? ' --stream' : ''}: an aborted reply is retried; a row aborted every time fails naming the abort`, async () => {
      const dir = await temps.make();
      const ds = await makeDataset(dir, 6);
      const always = rowMarker(ds.rows[0]!);
      const s = await server({ reply: aborting(worldReply, always) });
      const out = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--max-retries', '1', ...(stream ? ['--stream'] : [])]));
      assert.equal(r.code, 1, r.stderr);
      const rows = await readRowsOf(out);
      assert.equal(rows.length, ds.rows.length);
      for (const row of rows) {
        if (String(row.current_prompt).includes(always)) {
          assert.equal(row.gen, '');
          assert.match(String(row.error), /returned an aborted generation \(finish_reason "abort"\)/);
        } else {
          assert.equal(row.error, undefined, String(row.error));
          assert.equal(row.finish_reason, 'stop');
        }
      }
      // Every request twice: its aborted first attempt and its one retry.
      assert.equal(s.stats.requests, 2 * ds.rows.length);
    });
  }

  it('judge: an aborted reply is not parsed as a judgment, even when the text it holds would parse', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const always = rowMarker(ds.rows[0]!);
    const s = await server({ reply: aborting(judgeReply, always) });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['--max-retries', '1']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, ds.rows.length);
    for (const row of rows) {
      if (String(row.current_prompt).includes(always)) {
        assert.equal(row.failed, 1);
        assert.match(String(row.error_message), /returned an aborted generation \(finish_reason "abort"\)/);
      } else assert.equal(row.failed, 0, String(row.error_message));
    }
    assert.equal(s.stats.requests, 2 * ds.rows.length);
  });
});
