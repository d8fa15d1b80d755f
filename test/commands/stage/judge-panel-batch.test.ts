import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { judgeArgs } from '../../support/harness.js';
import {
  answering,
  batchFiles,
  startBatchServer,
  type BatchLine,
  type BatchReplyFn,
  type BatchServer,
} from '../../support/batch-server.js';
import { makeDataset, readRowsOf, rowMarker, tempDirs, writePredictions } from '../../support/dataset.js';
import { lastUserText, type ChatRequest, type ReplyFn } from '../../support/openai-server.js';
import type { PanelEntry } from '../../../src/core/schemas/index.js';

/* `judge --batch` with a panel of judges: a batch per member, each to its own endpoint, against local Batch API servers. */

const dirs = tempDirs('panel-batch');
const N = 8;
const servers: BatchServer[] = [];
/** N predicted rows over two domains, written once for every test. */
const made = (async () => {
  const dir = await dirs.make();
  const ds = await makeDataset(dir, N, ['mcp', 'search']);
  const predictions = join(dir, 'predictions.jsonl');
  await writePredictions(ds, predictions);
  return { dir, ds, predictions };
})();
after(() => Promise.all([...servers.map((s) => s.close()), dirs.cleanup()]));

/** Each member grades every dimension with its own constant: a 3, b 4, c 5. */
const GRADES: Record<string, number> = { a: 3, b: 4, c: 5 };
const byModel: ReplyFn = (req) => {
  const g = GRADES[req.model]!;
  return `<final_evaluation>${JSON.stringify({ scores: { format: g, factuality: g, consistency: g, realism: g, quality: g }, strengths: [], weaknesses: [] })}</final_evaluation>`;
};

async function batchServer(reply: BatchReplyFn = answering(byModel)): Promise<BatchServer> {
  const s = await startBatchServer({ reply });
  servers.push(s);
  return s;
}

const panelArgs = (predictions: string, shared: string, own: string, out: string, extra: string[] = []) =>
  judgeArgs(shared, predictions, out, ['--member-base-url', `c=${own}`, '--batch', '--batch-poll', '0.01', ...extra], 'a,b,c');

test("a batch per member, each holding its model's requests on its own endpoint: the rows are the panel's, priced as batch", async () => {
  const { dir, predictions } = await made;
  const shared = await batchServer();
  const own = await batchServer();
  const out = join(dir, 'batch.jsonl');
  const r = await runAwb(panelArgs(predictions, shared.url, own.url, out));
  assert.equal(r.code, 0, r.stderr);
  // The members submit at once: their files reach the shared server in either order.
  const byModel = batchFiles(shared).sort((x, y) => String(x.models[0]).localeCompare(String(y.models[0])));
  assert.deepEqual(byModel, [
    { models: ['a'], lines: N },
    { models: ['b'], lines: N },
  ]);
  assert.deepEqual(batchFiles(own), [{ models: ['c'], lines: N }]);
  assert.equal(shared.online.length + own.online.length, 0, 'nothing asked online');
  for (const m of ['a', 'b', 'c']) assert.match(r.stderr, new RegExp(`judge ${m}: batch 1/1 batch_\\S+: completed, ${N}/${N} done`));
  const rows = await readRowsOf(out);
  assert.equal(rows.length, N);
  for (const row of rows) {
    assert.deepEqual([row.total_score, row.failed], [4, 0]);
    const panel = row.panel as PanelEntry[];
    assert.deepEqual(
      panel.map((p) => `${p.judge} ${p.total_score}`),
      ['a 3', 'b 4', 'c 5'],
    );
    for (const p of panel) assert.deepEqual(p.judge_batch_usage, p.judge_usage, `${p.judge}: its whole usage came from its batch`);
    assert.deepEqual(row.judge_batch_usage, row.judge_usage, "the row's batch usage is its members' sum");
  }
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { batches: string[] };
  assert.deepEqual(manifest.batches.sort(), [...shared.batches.keys(), ...own.batches.keys()].sort());
  // Scored member by member, each member's judge tokens all came from its batch.
  const score = await runAwb(['score', out, '--by-judge', '--format', 'json', '--no-ci']);
  assert.equal(score.code, 0, score.stderr);
  type Judge = { prompt_tokens: number; batch_prompt_tokens: number };
  const runs = (JSON.parse(score.stdout) as { runs: Array<{ provenance: { judge: string }; usage: { judge: Judge } }> }).runs;
  assert.deepEqual(
    runs.map((run) => run.provenance.judge),
    ['a,b,c', 'a', 'b', 'c'],
  );
  for (const run of runs) {
    assert.ok(run.usage.judge.prompt_tokens > 0);
    assert.equal(run.usage.judge.batch_prompt_tokens, run.usage.judge.prompt_tokens, run.provenance.judge);
  }
  assert.deepEqual(
    (await readdir(dir)).filter((f) => f.includes('.batch')),
    [],
    'every state and batch file is gone',
  );
});

test('a line one member could not answer in its batch is asked of that member online; a resume batches only the members without a judgement', async () => {
  const { dir, ds, predictions } = await made;
  const target = ds.rows[2]!;
  const judges = (line: BatchLine) => lastUserText(line.body as ChatRequest).includes(rowMarker(target));
  let down = true;
  const good = answering(byModel);
  const shared = await batchServer((line) => {
    if (line.body.model === 'b' && judges(line)) {
      if (line.custom_id !== 'online') return { error: 'overloaded' };
      if (down) return { status: 500, body: { error: { message: 'internal' } } };
    }
    return good(line);
  });
  const own = await batchServer();
  const out = join(dir, 'resume.jsonl');
  const first = await runAwb(panelArgs(predictions, shared.url, own.url, out, ['--max-retries', '0']));
  assert.equal(first.code, 1, first.stderr);
  assert.deepEqual(
    shared.online.map((b) => b.model),
    ['b'],
    "only b's failed line went online",
  );
  const failed = (await readRowsOf(out)).filter((row) => row.failed !== 0);
  assert.equal(failed.length, 1);
  assert.match(String(failed[0]!.error_message), /panel member b/);

  down = false;
  const before = batchFiles(shared).length;
  const again = await runAwb(panelArgs(predictions, shared.url, own.url, out, ['--max-retries', '0']));
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(batchFiles(shared).slice(before), [{ models: ['b'], lines: 1 }], "one batch, b's, holding the row b did not judge");
  assert.equal(batchFiles(own).length, 1, 'c judged every row the first time: no batch of its own now');
  const rows = await readRowsOf(out);
  assert.equal(rows.length, N);
  for (const row of rows) assert.deepEqual([row.total_score, row.failed], [4, 0]);
});
