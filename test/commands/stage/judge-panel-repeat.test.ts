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

/** A judge whose i-th judgement of a row (counted per model and row) is `grades[model](i, row)`. */
function byRepeat(grades: Record<string, (i: number, row: Dataset['rows'][number]) => number>): ReplyFn {
  const asked = new Map<string, number>();
  return (req) => {
    const row = rowOf(req);
    const key = `${req.model} ${rowMarker(row)}`;
    const i = asked.get(key) ?? 0;
    asked.set(key, i + 1);
    return graded(grades[req.model]!(i, row));
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

type ModeJson = {
  file: string;
  judge?: string;
  mode: string;
  counted: number;
  domains: Record<string, { counted: number; judge_noise: { value: number; rows: number } }>;
  overall: { judge_noise: { value: number; ci95?: number[] } };
};

test('score --by-judge: each member has its judge noise from its own repeats, as its --repeat file alone has; without --by-judge a note points there', async () => {
  // a: always 3, no spread. b by domain: mcp 2, 3, 5; search 1, 1, 4, the same for every row.
  const B: Record<string, number[]> = { mcp: [2, 3, 5], search: [1, 1, 4] };
  const grades = { a: () => 3, b: (i: number, row: Dataset['rows'][number]) => B[row.task]![i]! };
  const s = await serve({ models: ['a', 'b'], reply: byRepeat(grades) });
  const out = join(dir, 'noise.jsonl');
  const r = await runAwb(judgeArgs(s.url, predictions, out, ['--repeat', '3'], 'a,b'));
  assert.equal(r.code, 0, r.stderr);

  // Sample SD (divisor K - 1) x 25. mcp: mean 10/3, squares 16/9 + 1/9 + 25/9 = 42/9, over 2: 7/3. search: mean 2, squares 1 + 1 + 4 = 6, over 2: 3.
  const mcp = 25 * Math.sqrt(7 / 3);
  const search = 25 * Math.sqrt(3);
  const modes = (await json(['score', out, '--by-judge'])).modes as ModeJson[];
  assert.deepEqual(
    modes.map((m) => [m.judge, m.mode, m.counted]),
    [
      ['a', 'repeat', N],
      ['b', 'repeat', N],
    ],
  );
  const [a, b] = modes as [ModeJson, ModeJson];
  assert.deepEqual([a.domains.mcp!.judge_noise.value, a.domains.search!.judge_noise.value, a.overall.judge_noise.value], [0, 0, 0]);
  const near = (x: number, y: number) => assert.ok(Math.abs(x - y) < 1e-9, `${x} vs ${y}`);
  near(b.domains.mcp!.judge_noise.value, mcp);
  near(b.domains.search!.judge_noise.value, search);
  near(b.overall.judge_noise.value, (mcp + search) / 2);

  // b judged alone with --repeat 3 (a fresh server: the same grades): the same figures, intervals too.
  const solo = await serve({ models: ['b'], reply: byRepeat(grades) });
  const alone = join(dir, 'noise-b.jsonl');
  const one = await runAwb(judgeArgs(solo.url, predictions, alone, ['--repeat', '3'], 'b'));
  assert.equal(one.code, 0, one.stderr);
  const withCi = async (args: string[]) => {
    const c = await runAwb([...args, '--format', 'json']);
    assert.equal(c.code, 0, c.stderr);
    return JSON.parse(c.stdout).modes as ModeJson[];
  };
  const [member] = (await withCi(['score', out, '--by-judge'])).filter((m) => m.judge === 'b');
  const [own] = await withCi(['score', alone]);
  assert.ok(member!.overall.judge_noise.ci95, 'an interval');
  const figures = ({ mode, counted, domains, overall }: ModeJson) => ({ mode, counted, domains, overall });
  assert.deepEqual(figures(member!), figures(own!));

  // Every format names the member's figures.
  const csv = await runAwb(['score', out, '--by-judge', '--format', 'csv', '--no-ci']);
  assert.equal(csv.code, 0, csv.stderr);
  const noiseLines = csv.stdout.split('\n').filter((l) => l.includes(',judge_noise,'));
  assert.deepEqual(
    noiseLines.map((l) => l.split(',').at(-1)),
    ['a', 'a', 'a', 'b', 'b', 'b'],
  );
  for (const format of ['table', 'markdown']) {
    const t = await runAwb(['score', out, '--by-judge', '--format', format, '--no-ci']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /judge b\\?\) \\?\(repeat/);
  }

  // Without --by-judge the file scores as a rubric file, with one note saying where the noise is.
  const plain = await json(['score', out]);
  assert.equal(plain.modes, undefined);
  assert.equal((plain.notes as string[]).filter((n) => n.includes('--by-judge')).length, 1);
  const plainCsv = await runAwb(['score', out, '--format', 'csv', '--no-ci']);
  assert.equal(plainCsv.stderr.split('\n').filter((l) => l.startsWith('awb: note:') && l.includes('--by-judge')).length, 1);
});
