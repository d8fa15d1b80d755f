/*
 * awb against a server that answers as Hugging Face `transformers serve` does
 * (test/support/transformers-server.ts): FastAPI `{"detail"}` error bodies,
 * streams without `[DONE]` whose finish chunk carries the usage, a models list
 * of the Hub cache. The server here is pinned to a model its cache list names;
 * test/commands/stage/transformers-serve-pinned.test.ts has the pinned cases
 * awb does not handle yet.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, keyOf, makeDataset, readRowsOf, tempDirs, worldReply, type Dataset } from '../../support/dataset.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { refusalLine } from '../../support/refusal.js';
import { manifestPathFor } from '../../../src/core/schemas/index.js';
import { startTransformersServer, type TransformersOptions, type TransformersServer } from '../../support/transformers-server.js';

const temps = tempDirs('transformers-serve');
const servers: TransformersServer[] = [];
after(() => Promise.all([temps.cleanup(), ...servers.map((s) => s.close())]));

const SERVED = 'Qwen/Qwen2.5-0.5B-Instruct';
const CACHE = [SERVED, 'HuggingFaceTB/SmolLM2-135M-Instruct', 'Qwen/Qwen3-0.6B'];

async function serve(opts: TransformersOptions): Promise<TransformersServer> {
  const s = await startTransformersServer({ pinned: SERVED, cached: CACHE, ...opts });
  servers.push(s);
  return s;
}

const infer = (url: string, data: string, out: string, extra: string[] = []) => runAwb(inferArgs(url, data, out, extra, SERVED));

const judge = (url: string, predictions: string, out: string, extra: string[] = []) =>
  runAwb(judgeArgs(url, predictions, out, extra, SERVED));

/** What a run must agree on whatever the transport: per row, the picked fields (timings and endpoints differ by nature). */
async function recorded(path: string, fields: readonly string[]): Promise<Map<string, unknown>> {
  const rows = await readRowsOf(path);
  return new Map(rows.map((row) => [keyOf(row), Object.fromEntries(fields.map((f) => [f, row[f]]))]));
}

let root: string;
let ds: Dataset;
let world: TransformersServer;

before(async () => {
  root = await temps.make();
  ds = await makeDataset(root, 12, ['mcp', 'web', 'terminal']);
  world = await serve({ reply: worldReply });
});

describe('infer and judge against transformers serve', () => {
  it('infer with and without --stream records the same predictions, finish reasons and usage, also when --max-tokens cuts them', async () => {
    for (const cap of [[], ['--max-tokens', '4']]) {
      const plain = join(root, `plain${cap.length}`, 'pred.jsonl');
      const streamed = join(root, `streamed${cap.length}`, 'pred.jsonl');
      const a = await infer(world.url, ds.dir, plain, cap);
      assert.equal(a.code, 0, a.stderr);
      const b = await infer(world.url, ds.dir, streamed, ['--stream', ...cap]);
      assert.equal(b.code, 0, b.stderr);
      const fields = ['gen', 'finish_reason', 'usage', 'error'];
      const [x, y] = [await recorded(plain, fields), await recorded(streamed, fields)];
      assert.equal(x.size, ds.rows.length);
      assert.deepEqual(y, x);
      const finishes = new Set([...x.values()].map((r) => (r as { finish_reason: string }).finish_reason));
      assert.deepEqual(finishes, new Set([cap.length ? 'length' : 'stop']));
      for (const r of x.values()) assert.ok((r as { usage?: { completion_tokens?: number } }).usage?.completion_tokens, JSON.stringify(r));
    }
    // The streams asked for usage; the server sent it in the finish chunk and never sent [DONE].
    assert.ok(world.chats.some((c) => c.stream && (c.body?.stream_options as { include_usage?: boolean })?.include_usage));
  });

  it('judge grades the predictions, with and without --stream alike', async () => {
    const preds = join(root, 'plain0', 'pred.jsonl');
    const grader = await serve({ reply: judgeReply });
    const plain = join(root, 'judged', 'plain.jsonl');
    const streamed = join(root, 'judged', 'streamed.jsonl');
    const a = await judge(grader.url, preds, plain);
    assert.equal(a.code, 0, a.stderr);
    const b = await judge(grader.url, preds, streamed, ['--stream']);
    assert.equal(b.code, 0, b.stderr);
    const fields = ['total_score', 'format', 'factuality', 'consistency', 'realism', 'quality', 'failed', 'judge_raw_output'];
    const [x, y] = [await recorded(plain, fields), await recorded(streamed, fields)];
    assert.equal(x.size, ds.rows.length);
    assert.deepEqual(y, x);
    for (const r of x.values()) {
      const row = r as { failed: number; total_score: number };
      assert.equal(row.failed, 0, JSON.stringify(r));
      assert.ok(row.total_score >= 1, JSON.stringify(r));
    }
  });

  it('a stream that stays open after its finish chunk (no [DONE], no end) is cut, and the run finishes with every answer and its usage', async () => {
    const open = await serve({ reply: worldReply, holdOpen: true });
    const out = join(root, 'held-open', 'pred.jsonl');
    // --stream-idle bounds the wait after the finish chunk (5 s at most by default), so the three turns of each trajectory take seconds.
    const r = await infer(open.url, ds.dir, out, ['--stream', '--stream-idle', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.signal, null);
    const rows = await recorded(out, ['gen', 'usage', 'error']);
    assert.deepEqual(rows, await recorded(join(root, 'streamed0', 'pred.jsonl'), ['gen', 'usage', 'error']));
    // awb ended each stream itself: the server never did.
    assert.equal(open.cutByClient, ds.rows.length);
  });

  it("a field the server does not know is refused with FastAPI's 422 string detail: the run stops in one line that quotes it", async () => {
    const s = await serve({ reply: worldReply });
    const r = await infer(s.url, ds.dir, join(root, 'unknown-field', 'pred.jsonl'), ['--extra-body', '{"top_k": 20}', '-c', '2']);
    const line = refusalLine(r, 3);
    assert.ok(line.includes("Unexpected fields in the request: {'top_k'}"), line);
    assert.ok(line.includes('--extra-body'), line);
    assert.ok(s.chats.every((c) => c.status === 422));
  });

  it('an earlier version that refuses the fields it does not use: the stop names the fix, and the fix on the same -o answers every row', async () => {
    const s = await serve({ reply: worldReply, unusedFields: 'refuse' });
    const out = join(root, 'unused-fields', 'pred.jsonl');
    const line = refusalLine(await infer(s.url, ds.dir, out, ['-c', '2']), 3);
    assert.ok(line.includes("Unsupported fields in the request: {'max_completion_tokens'}"), line);
    const fix = /--extra-body '([^']+)'/.exec(line)?.[1];
    assert.ok(fix, line);
    // No row holds an answer, so the changed --extra-body mixes nothing: the run goes on and records it.
    const r = await infer(s.url, ds.dir, out, ['--extra-body', fix]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRowsOf(out)).filter((row) => row.gen && row.error === undefined).length, ds.rows.length);
    const manifest = JSON.parse(await readFile(manifestPathFor(out), 'utf8')) as { settings: { sampling: { extra_body?: unknown } } };
    assert.deepEqual(manifest.settings.sampling.extra_body, JSON.parse(fix));
  });

  it('--stream with --extra-body {"stream_options": null} sends no stream_options to a version that refuses it, and answers every row with the usage it sends anyway', async () => {
    const s = await serve({ reply: worldReply, unusedFields: 'refuse' });
    const out = join(root, 'no-stream-options', 'pred.jsonl');
    const r = await infer(s.url, ds.dir, out, ['--stream', '--extra-body', '{"max_completion_tokens": null, "stream_options": null}']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(s.chats.length > 0 && s.chats.every((c) => c.stream && c.body && !Object.hasOwn(c.body, 'stream_options')));
    const rows = await readRowsOf(out);
    assert.equal(rows.filter((row) => row.gen && (row.usage as { completion_tokens?: number })?.completion_tokens).length, ds.rows.length);
  });

  it('awb models lists the ids of its models list, one a line, those the pinned server refuses marked', async () => {
    const r = await runAwb(['models', '--base-url', world.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.stdout.trimEnd().split('\n'),
      CACHE.map((id) => (id === SERVED ? id : `${id}\trefused`)),
    );
  });

  it('a model name neither listed nor served is refused in one line (exit 3) and no row is answered', async () => {
    const s = await serve({ reply: worldReply });
    const out = join(root, 'unlisted', 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '2'], 'no/such-model'));
    assert.match(refusalLine(r, 3), /no\/such-model/);
    assert.ok(s.chats.length <= 2, `${s.chats.length} chat requests`);
    assert.ok(s.chats.every((c) => c.status === 400));
  });
});
