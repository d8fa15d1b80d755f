import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { readRowsOf, rowMarker, synthRows, tempDirs, type SynthRow } from '../../support/dataset.js';
import { judgeArgs, useServers } from '../../support/harness.js';
import { asks, judges, realAt } from '../../support/choice-judges.js';
import { answering, batchFiles, startBatchServer, type BatchServer } from '../../support/batch-server.js';
import type { ReplyFn } from '../../support/openai-server.js';
import { NO_REFERENCE, type ChoicePanelEntry } from '../../../src/core/schemas/index.js';
import { collectReport } from '../../../src/core/report/index.js';
import { scoreRequestOf } from '../../fixtures/judged/rows.js';

/* The choice modes judged by a panel (issue 37, item 3), against local judges of known behaviour. */

const dirs = tempDirs('choice-panel');
const serve = useServers();
const N = 8;
const rows = synthRows(N, ['mcp', 'search']);
const batchServers: BatchServer[] = [];
let dir: string;
let cand: string;
let ref: string;
/** The reference lacks this row: written as NO_REFERENCE, never sent. */
const unpaired = rows[3]!;

async function predictions(name: string, tag: string, keep: (r: SynthRow) => boolean = () => true): Promise<string> {
  const path = join(dir, `${name}.jsonl`);
  const lines = rows
    .filter(keep)
    .map((r) => JSON.stringify({ ...r, gen: `<predicted_observation>${tag} of ${rowMarker(r)}</predicted_observation>` }));
  await writeFile(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

before(async () => {
  dir = await dirs.make();
  cand = await predictions('cand', 'CAND');
  ref = await predictions('ref', 'REF', (r) => r !== unpaired);
});
after(() => Promise.all([...batchServers.map((s) => s.close()), dirs.cleanup()]));

/** Each member answers as the judge its behaviour names. */
const members =
  (behaviour: Record<string, string>): ReplyFn =>
  (req, ctx) =>
    judges[behaviour[req.model]!]!(req, ctx);
const same = (row: Record<string, unknown>, r: SynthRow) => row.task === r.task && row.id === r.id && row.turn_idx === r.turn_idx;

type Modes = Array<{ mode: string; judge?: string; overall: Record<string, { value: number | null }> }>;
async function modesOf(out: string, extra: string[] = []): Promise<Modes> {
  const r = await runAwb(['score', out, '--format', 'json', '--no-ci', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { modes: Modes }).modes;
}
const near = (a: number | null | undefined, b: number) => assert.ok(a != null && Math.abs(a - b) < 1e-9, `${a} vs ${b}`);

test('turing: a spotter, a fooled judge and an always-A judge fool 50% as a panel, the mean of their 0, 100 and 50', async () => {
  const behaviour = { a: 'spotter', b: 'fooled', c: 'alwaysA' } as const;
  const s = await serve({ models: ['a', 'b', 'c'], reply: members(behaviour) });
  const out = join(dir, 'turing.jsonl');
  const r = await runAwb(judgeArgs(s.url, cand, out, ['--mode', 'turing', '-c', '4'], 'a,b,c'));
  assert.equal(r.code, 0, r.stderr);
  for (const m of ['a', 'b', 'c'])
    for (const row of rows) {
      const sent = s.log.filter((e) => e.model === m && asks(e.request!, row));
      assert.deepEqual(sent.map((e) => realAt(e.request!)).sort(), ['A', 'B'], `${m} asked both orders of ${rowMarker(row)}`);
    }
  const judged = await readRowsOf(out);
  assert.equal(judged.length, N);
  for (const row of judged) {
    assert.deepEqual(row.turing, { fooling: 0.5, position_consistency: 2 / 3, failed: 0 });
    assert.equal(row.failed, 0);
    const panel = row.panel as ChoicePanelEntry[];
    // The first order shows the real observation at A: always-A picks it there only.
    assert.deepEqual(
      panel.map((p) => [p.judge, p.failed, p.judge_attempts, p.turing!.orders.map((o) => o.picked_real)]),
      [
        ['a', 0, 2, [true, true]],
        ['b', 0, 2, [false, false]],
        ['c', 0, 2, [true, false]],
      ],
    );
    for (const p of panel) {
      assert.ok(p.turing!.orders.every((o) => o.raw?.includes('boxed') && o.judge_usage));
      assert.ok(p.judge_usage!.total_tokens! > 0 && p.judge_endpoint);
    }
    const summed = panel.reduce((n, p) => n + p.judge_usage!.total_tokens!, 0);
    assert.equal((row.judge_usage as { total_tokens: number }).total_tokens, summed);
  }
  const [panelFigures, ...own] = await modesOf(out, ['--by-judge']);
  assert.equal(panelFigures!.judge, undefined);
  assert.equal(panelFigures!.overall.fooling_rate!.value, 50);
  near(panelFigures!.overall.position_consistency!.value, 200 / 3);
  assert.deepEqual(
    own.map((m) => [m.judge, m.overall.fooling_rate!.value, m.overall.position_consistency!.value]),
    [
      ['a', 0, 100],
      ['b', 100, 100],
      ['c', 50, 0],
    ],
  );
  assert.equal((await modesOf(out)).length, 1, 'without --by-judge, the panel alone');
  const table = await runAwb(['score', out, '--by-judge', '--format', 'markdown', '--no-ci']);
  assert.match(table.stdout, /turing\.jsonl \\?\(judge c\\?\)/);
  const csv = await runAwb(['score', out, '--by-judge', '--format', 'csv', '--no-ci']);
  assert.match(csv.stdout, /^file,mode,domain,figure,value,ci_low,ci_high,rows,judge$/m);
  assert.match(csv.stdout, /turing,Overall,fooling_rate,100,.*,b$/m);
  // The report's row page lists each member's two orders, named.
  const pages = (await collectReport(scoreRequestOf([out]))).rows.rows;
  assert.equal(pages.length, N);
  for (const r of pages)
    assert.deepEqual(
      r.choice!.orders.map((o) => [o.judge, o.at, o.hit]),
      [
        ['a', 'A', false],
        ['a', 'B', false],
        ['b', 'A', true],
        ['b', 'B', true],
        ['c', 'A', false],
        ['c', 'B', true],
      ],
    );
});

test('--panel median takes the middle member, mean their average: two spotters and a fooled judge', async () => {
  const s = await serve({ models: ['a', 'b', 'c'], reply: members({ a: 'spotter', b: 'spotter', c: 'fooled' }) });
  for (const [rule, fooling] of [
    ['mean', 1 / 3],
    ['median', 0],
  ] as const) {
    const out = join(dir, `turing-${rule}.jsonl`);
    const r = await runAwb(judgeArgs(s.url, cand, out, ['--mode', 'turing', '--panel', rule], 'a,b,c'));
    assert.equal(r.code, 0, r.stderr);
    for (const row of await readRowsOf(out)) assert.deepEqual(row.turing, { fooling, position_consistency: 1, failed: 0 }, rule);
    near((await modesOf(out))[0]!.overall.fooling_rate!.value, 100 * fooling);
  }
});

test('pairwise: members always for the candidate, always for the reference and always A win 50% as a panel; unpaired rows unasked', async () => {
  const s = await serve({ models: ['a', 'b', 'c'], reply: members({ a: 'candidate', b: 'reference', c: 'alwaysA' }) });
  const out = join(dir, 'pairwise.jsonl');
  const r = await runAwb(judgeArgs(s.url, cand, out, ['--mode', 'pairwise', '--reference', ref], 'a,b,c'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.log.filter((e) => e.request).length, 3 * 2 * (N - 1));
  assert.ok(!s.log.some((e) => e.request && asks(e.request, unpaired)));
  for (const row of await readRowsOf(out)) {
    const result = row.pairwise as Record<string, unknown>;
    const panel = row.panel as ChoicePanelEntry[];
    if (same(row, unpaired)) {
      assert.deepEqual(
        [row.failed, row.error_message, row.judge_failure, result.win, result.failed],
        [1, NO_REFERENCE, 'no-reference', null, 1],
      );
      assert.deepEqual(
        panel.map((p) => [p.judge, p.failed, p.error_message, p.judge_failure]),
        ['a', 'b', 'c'].map((m) => [m, 1, NO_REFERENCE, 'no-reference']),
      );
      continue;
    }
    assert.deepEqual([row.failed, result.win, result.position_consistency], [0, 0.5, 2 / 3]);
    assert.match(String(result.reference_output), /REF of/);
    assert.deepEqual(
      panel.map((p) => [p.judge, p.pairwise!.orders.map((o) => o.preferred), p.pairwise!.reference_output]),
      [
        ['a', ['candidate', 'candidate'], undefined],
        ['b', ['reference', 'reference'], undefined],
        ['c', ['candidate', 'reference'], undefined],
      ],
    );
  }
  const modes = await modesOf(out, ['--by-judge']);
  assert.deepEqual(
    modes.map((m) => [m.judge, m.overall.win_rate!.value]),
    [
      [undefined, 50],
      ['a', 100],
      ['b', 0],
      ['c', 50],
    ],
  );
});

test('a member whose request failed leaves the row to redo (exit 1); the resume asks only that member, both orders', async () => {
  const target = rows[2]!;
  let down = true;
  const s = await serve({
    models: ['a', 'b', 'c'],
    reply: members({ a: 'spotter', b: 'fooled', c: 'alwaysA' }),
    faults: (req) => (down && req.model === 'b' && asks(req, target) ? '500' : undefined),
  });
  const out = join(dir, 'resume.jsonl');
  const args = judgeArgs(s.url, cand, out, ['--mode', 'turing', '--max-retries', '0'], 'a,b,c');
  const first = await runAwb(args);
  assert.equal(first.code, 1, first.stderr);
  const failed = (await readRowsOf(out)).filter((row) => row.failed !== 0);
  assert.equal(failed.length, 1);
  assert.ok(same(failed[0]!, target));
  assert.match(String(failed[0]!.error_message), /request failed.*panel member b/);
  assert.deepEqual(failed[0]!.turing, { fooling: null, position_consistency: null, failed: 1 });
  down = false;
  const before = s.log.length;
  const again = await runAwb(args);
  assert.equal(again.code, 0, again.stderr);
  const asked = s.log.slice(before).filter((e) => e.request);
  assert.deepEqual(
    asked.map((e) => e.model),
    ['b', 'b'],
    'only the member without a verdict',
  );
  assert.ok(asked.every((e) => asks(e.request!, target)));
  assert.deepEqual(asked.map((e) => realAt(e.request!)).sort(), ['A', 'B']);
  const judged = await readRowsOf(out);
  assert.equal(judged.length, N);
  for (const row of judged) assert.deepEqual(row.turing, { fooling: 0.5, position_consistency: 2 / 3, failed: 0 });
});

test("a member whose replies never parse is left out of that row; a row no member could answer fails for good, as one judge's", async () => {
  const [oneOut, allOut] = [rows[1]!, rows[5]!];
  const good = members({ a: 'spotter', b: 'spotter', c: 'fooled' });
  const s = await serve({
    models: ['a', 'b', 'c'],
    reply: (req, ctx) => ((req.model === 'c' && asks(req, oneOut)) || asks(req, allOut) ? 'no idea' : good(req, ctx)),
  });
  const out = join(dir, 'unparsed.jsonl');
  const args = judgeArgs(s.url, cand, out, ['--mode', 'turing', '--parse-attempts', '1'], 'a,b,c');
  // A row failed for good ends the run with 1, as with one judge.
  const r = await runAwb(args);
  assert.equal(r.code, 1, r.stderr);
  for (const row of await readRowsOf(out)) {
    const panel = row.panel as ChoicePanelEntry[];
    if (same(row, oneOut)) {
      assert.deepEqual(row.turing, { fooling: 0, position_consistency: 1, failed: 0 }, 'the two spotters alone');
      assert.deepEqual(
        panel.map((p) => p.failed),
        [0, 0, 1],
      );
      assert.equal(panel[2]!.judge_failure, 'unparsed');
    } else if (same(row, allOut)) {
      assert.equal(row.failed, 1);
      assert.equal(row.judge_failure, 'unparsed');
      assert.match(String(row.error_message), /panel member a/);
    } else assert.deepEqual(row.turing, { fooling: 1 / 3, position_consistency: 1, failed: 0 });
  }
  const modes = await modesOf(out);
  assert.equal((modes[0] as unknown as { counted: number }).counted, N - 1);
  const before = s.log.length;
  await runAwb(args);
  assert.equal(s.log.length, before, 'final: nothing asked again');
});

test('--batch: a batch per member holding both orders of every row; the rows are the panel, nothing asked online', async () => {
  const server = await startBatchServer({ reply: answering(members({ a: 'spotter', b: 'fooled', c: 'alwaysA' })) });
  batchServers.push(server);
  const out = join(dir, 'batch.jsonl');
  const r = await runAwb(judgeArgs(server.url, cand, out, ['--mode', 'turing', '--batch', '--batch-poll', '0.01'], 'a,b,c'));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    batchFiles(server)
      .map((f) => `${f.models.join()} ${f.lines}`)
      .sort(),
    [`a ${2 * N}`, `b ${2 * N}`, `c ${2 * N}`],
  );
  assert.equal(server.online.length, 0);
  const judged = await readRowsOf(out);
  assert.equal(judged.length, N);
  for (const row of judged) assert.deepEqual(row.turing, { fooling: 0.5, position_consistency: 2 / 3, failed: 0 });
});
