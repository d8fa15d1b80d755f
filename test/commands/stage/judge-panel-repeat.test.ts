import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { answering, startBatchServer, type BatchLine, type BatchServer } from '../../support/batch-server.js';
import { makeDataset, readRowsOf, rowMarker, tempDirs, writePredictions, type Dataset } from '../../support/dataset.js';
import { lastUserText, type ChatRequest, type ReplyFn } from '../../support/openai-server.js';
import { judgeArgs, useServers } from '../../support/harness.js';
import type { PanelEntry } from '../../../src/core/schemas/index.js';

/* `judge --judge-model a,b,c --repeat K`: each member judges each row K times; its grade is their mean, the panel's the members' mean or median. */

const dirs = tempDirs('panel-repeat');
const serve = useServers();
const batchServers: BatchServer[] = [];
after(() => Promise.all([...batchServers.map((s) => s.close()), dirs.cleanup()]));
const N = 6;
let dir: string;
let ds: Dataset;
let predictions: string;

before(async () => {
  dir = await dirs.make();
  ds = await makeDataset(dir, N, ['mcp', 'search']);
  predictions = join(dir, 'predictions.jsonl');
  await writePredictions(ds, predictions);
});

const graded = (g: number) =>
  `<final_evaluation>${JSON.stringify({ scores: { format: g, factuality: g, consistency: g, realism: g, quality: g }, strengths: [], weaknesses: [] })}</final_evaluation>`;

/** The row a request judges: the marker of its latest turn (earlier turns' markers are in its history). */
const rowOf = (req: ChatRequest) =>
  ds.rows.filter((r) => lastUserText(req).includes(rowMarker(r))).sort((x, y) => y.turn_idx - x.turn_idx)[0]!;

/** A judge whose i-th judgement of a row (counted per model and row) is `grades[model](i)`. */
function byRepeat(grades: Record<string, (i: number) => number>): ReplyFn {
  const asked = new Map<string, number>();
  return (req) => {
    const key = `${req.model} ${rowMarker(rowOf(req))}`;
    const i = asked.get(key) ?? 0;
    asked.set(key, i + 1);
    return graded(grades[req.model]!(i));
  };
}

/** a: 1, 2, 3, 4, 5, 1, 2 (mean 18/7); b: always 4; c: 2 then 5 (mean 32/7 over seven). */
const SEVEN = { a: (i: number) => 1 + (i % 5), b: () => 4, c: (i: number) => (i === 0 ? 2 : 5) };
const points = (grade: number) => ((grade - 1) / 4) * 100;

const panelArgs = (url: string, out: string, extra: string[]) => judgeArgs(url, predictions, out, extra, 'a,b,c');

async function json(args: string[]) {
  const r = await runAwb([...args, '--format', 'json', '--no-ci']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('--repeat 7: every member judges every row seven times; its grade is their mean, the panel the mean (or median) of the members; score, --by-judge, agreement and report read the file', async () => {
  const s = await serve({ models: ['a', 'b', 'c'], reply: byRepeat(SEVEN) });
  const out = join(dir, 'mean.jsonl');
  const r = await runAwb(panelArgs(s.url, out, ['--repeat', '7']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.stats.successes, N * 3 * 7);
  for (const row of await readRowsOf(out)) {
    const panel = row.panel as PanelEntry[];
    assert.deepEqual(
      panel.map((p) => p.judge_repeats!.map((x) => x.total_score)),
      [
        [1, 2, 3, 4, 5, 1, 2],
        [4, 4, 4, 4, 4, 4, 4],
        [2, 5, 5, 5, 5, 5, 5],
      ],
    );
    assert.deepEqual(
      panel.map((p) => p.total_score),
      [18 / 7, 4, 32 / 7],
    );
    assert.ok(Math.abs((row.quality as number) - 26 / 7) < 1e-12 && Math.abs((row.total_score as number) - 26 / 7) < 1e-12);
    assert.equal(row.judge_repeats, undefined, "the repeats are the members', not the row's");
  }
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.settings.repeat, 7);

  // Means of sevenths are read to the nearest sixtieth: within 0.21 points of the exact mean.
  const runs = (await json(['score', out, '--by-judge'])).runs as Array<{ domains: Record<string, { score: number }> }>;
  const expected = [26 / 7, 18 / 7, 4, 32 / 7].map(points);
  for (const [i, run] of runs.entries())
    for (const d of ['mcp', 'search'])
      assert.ok(Math.abs(run.domains[d]!.score - expected[i]!) <= 0.21, `${i} ${d}: ${run.domains[d]!.score}`);

  const median = join(dir, 'median.jsonl');
  const m = await runAwb(panelArgs(s.url, median, ['--repeat', '7', '--panel', 'median']));
  assert.equal(m.code, 0, m.stderr);
  for (const row of await readRowsOf(median)) assert.deepEqual([row.quality, row.total_score], [4, 4], "b's 4, the middle member");

  const agreement = await json(['agreement', out, median]);
  assert.equal(agreement.pairs[0].domains.all.matched, N);
  const report = await runAwb(['report', out, '-o', join(dir, 'report.html')]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(await readFile(join(dir, 'report.html'), 'utf8'), /Judge agreement/);
});

test('--batch: each member batches its K requests of every row, and each repeat takes its own reply', async () => {
  const reply = byRepeat({ a: (i) => 2 + i, b: () => 4, c: (i) => 5 - i });
  const shared = await startBatchServer({ reply: answering(reply) });
  batchServers.push(shared);
  const out = join(dir, 'batch.jsonl');
  const r = await runAwb(panelArgs(shared.url, out, ['--repeat', '3', '--batch', '--batch-poll', '0.01']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(shared.online.length, 0, 'nothing asked online');
  // A batch per member; in each, a line per row and repeat, each with its own custom_id.
  const files = [...shared.files.values()]
    .filter((f) => f.purpose === 'batch')
    .map((f) =>
      f.content
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as BatchLine),
    );
  assert.equal(files.length, 3);
  for (const lines of files) {
    assert.equal(lines.length, N * 3);
    assert.equal(new Set(lines.map((l) => l.custom_id)).size, lines.length);
  }
  for (const row of await readRowsOf(out)) {
    assert.deepEqual(
      (row.panel as PanelEntry[]).map((p) => p.judge_repeats!.map((x) => x.total_score)),
      [
        [2, 3, 4],
        [4, 4, 4],
        [5, 4, 3],
      ],
    );
    assert.deepEqual([row.total_score, row.failed], [(3 + 4 + 4) / 3, 0]);
    assert.deepEqual(row.judge_batch_usage, row.judge_usage);
  }
});
