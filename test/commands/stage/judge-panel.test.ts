import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { rowMarker, readRowsOf, synthRows, tempDirs } from '../../support/dataset.js';
import { lastUserText, type ChatRequest, type ReplyFn } from '../../support/openai-server.js';
import { useServers } from '../../support/harness.js';
import type { PanelEntry } from '../../../src/core/schemas/index.js';

/* Panels of judges (issue 37, item 3): against local judges of known behaviour, each grading every dimension alike. */

const dirs = tempDirs('panel');
const serve = useServers();
const rows = synthRows(6, ['mcp', 'search']);
let dir: string;
let predictions: string;

before(async () => {
  dir = await dirs.make();
  predictions = join(dir, 'predictions.jsonl');
  const lines = rows.map((r) => JSON.stringify({ ...r, gen: `<predicted_observation>obs of ${rowMarker(r)}</predicted_observation>` }));
  await writeFile(predictions, lines.map((l) => `${l}\n`).join(''));
});

const graded = (g: number) =>
  `<final_evaluation>${JSON.stringify({ scores: { format: g, factuality: g, consistency: g, realism: g, quality: g }, strengths: [], weaknesses: [] })}</final_evaluation>`;
/** Each model grades every dimension with its own constant. */
const byModel =
  (grades: Record<string, number>): ReplyFn =>
  (req) =>
    graded(grades[req.model]!);
const judgesRow = (req: ChatRequest, row: (typeof rows)[number]) => lastUserText(req).includes(rowMarker(row));

function panelArgs(url: string, out: string, models: string, extra: string[] = []): string[] {
  return ['judge', '--judge-base-url', url, '--judge-model', models, '--predictions', predictions, '-o', out, '--no-progress', ...extra];
}

test('a panel of three judges giving 3, 4 and 5 grades every row 4, keeps each member, and score shows 75 (members on their own endpoints too)', async () => {
  const shared = await serve({ models: ['a', 'b'], reply: byModel({ a: 3, b: 4 }) });
  const own = await serve({ models: ['c'], reply: byModel({ c: 5 }) });
  const out = join(dir, 'mean.jsonl');
  const r = await runAwb(panelArgs(shared.url, out, 'a,b,c', ['--member-base-url', `c=${own.url}`]));
  assert.equal(r.code, 0, r.stderr);
  const judged = await readRowsOf(out);
  assert.equal(judged.length, rows.length);
  for (const row of judged) {
    assert.deepEqual([row.format, row.realism, row.total_score, row.failed], [4, 4, 4, 0]);
    const panel = row.panel as PanelEntry[];
    assert.deepEqual(
      panel.map((p) => [p.judge, p.total_score]),
      [
        ['a', 3],
        ['b', 4],
        ['c', 5],
      ],
    );
  }
  assert.equal(own.stats.successes, rows.length, 'c asked on its own endpoint only');
  assert.ok(shared.log.every((e) => e.model !== 'c'));
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
  assert.deepEqual(
    manifest.settings.panel.members.map((m: { model: string }) => m.model),
    ['a', 'b', 'c'],
  );
  assert.equal(manifest.settings.panel.rule, 'mean');
  assert.equal(manifest.settings.judge.model, 'a,b,c');
  const score = await runAwb(['score', out, '--format', 'json', '--no-ci']);
  assert.equal(score.code, 0, score.stderr);
  const run = JSON.parse(score.stdout).runs[0];
  assert.deepEqual(
    Object.values(run.domains as Record<string, { score: number }>).map((d) => d.score),
    [75, 75],
  );
});

test('--panel median takes the middle member', async () => {
  const s = await serve({ models: ['a', 'b', 'c'], reply: byModel({ a: 1, b: 2, c: 5 }) });
  const out = join(dir, 'median.jsonl');
  const r = await runAwb(panelArgs(s.url, out, 'a,b,c', ['--panel', 'median']));
  assert.equal(r.code, 0, r.stderr);
  for (const row of await readRowsOf(out)) assert.deepEqual([row.quality, row.total_score], [2, 2]);
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.settings.panel.rule, 'median');
});

for (const repeat of [1, 2])
  test(`a member failing on a row leaves it to redo; the resume asks only that member${repeat > 1 ? ', its K again (--repeat 2)' : ''}`, async () => {
    const target = rows[2]!;
    let down = true;
    const s = await serve({
      models: ['a', 'b', 'c'],
      reply: byModel({ a: 3, b: 4, c: 5 }),
      faults: (req) => (down && req.model === 'b' && judgesRow(req, target) ? '500' : undefined),
    });
    const out = join(dir, `resume-${repeat}.jsonl`);
    const extra = ['--max-retries', '0', ...(repeat > 1 ? ['--repeat', String(repeat)] : [])];
    const first = await runAwb(panelArgs(s.url, out, 'a,b,c', extra));
    assert.equal(first.code, 1, first.stderr);
    const failed = (await readRowsOf(out)).filter((r) => r.failed !== 0);
    assert.equal(failed.length, 1);
    assert.match(String(failed[0]!.error_message), /request failed.*panel member b/);
    down = false;
    const before = s.log.length;
    const again = await runAwb(panelArgs(s.url, out, 'a,b,c', extra));
    assert.equal(again.code, 0, again.stderr);
    const asked = s.log.slice(before).filter((e) => e.request);
    assert.deepEqual(
      asked.map((e) => e.model),
      Array.from({ length: repeat }, () => 'b'),
      'only the member without a judgement is asked again',
    );
    assert.ok(asked.every((e) => judgesRow(e.request!, target)));
    const judged = await readRowsOf(out);
    assert.equal(judged.length, rows.length);
    for (const row of judged) {
      assert.deepEqual([row.total_score, row.failed], [4, 0]);
      const kept = (row.panel as PanelEntry[]).map((p) => p.judge_repeats?.length);
      assert.deepEqual(kept, repeat > 1 ? [2, 2, 2] : [undefined, undefined, undefined]);
    }
  });

test('a member whose replies cannot be parsed is left out of the panel grade of that row', async () => {
  const target = rows[1]!;
  const s = await serve({
    models: ['a', 'b', 'c'],
    reply: (req, ctx) => (req.model === 'c' && judgesRow(req, target) ? 'no grades here' : byModel({ a: 3, b: 4, c: 5 })(req, ctx)),
  });
  const out = join(dir, 'unparsed.jsonl');
  const r = await runAwb(panelArgs(s.url, out, 'a,b,c', ['--parse-attempts', '1']));
  assert.equal(r.code, 0, r.stderr);
  const row = (await readRowsOf(out)).find((x) => x.id === target.id && x.turn_idx === target.turn_idx && x.task === target.task)!;
  assert.deepEqual([row.total_score, row.failed], [3.5, 0]);
  assert.equal((row.panel as PanelEntry[])[2]!.failed, 1);
});

test('panel options: member options without a panel; a member name that is none', async () => {
  const s = await serve({ models: ['a', 'b'] });
  const out = join(dir, 'refused.jsonl');
  const single = await runAwb(panelArgs(s.url, out, 'a', ['--panel', 'median']));
  assert.equal(single.code, 2);
  assert.match(single.stderr, /--panel goes with a panel of judges/);
  const stranger = await runAwb(panelArgs(s.url, out, 'a,b', ['--member-base-url', `z=${s.url}`]));
  assert.equal(stranger.code, 2);
  assert.match(stranger.stderr, /z is not a member of the panel/);
  const twice = await runAwb(panelArgs(s.url, out, 'a,a'));
  assert.equal(twice.code, 2);
  assert.equal(s.stats.requests, 0, 'nothing sent');
});
