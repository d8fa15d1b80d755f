/*
 * Leaderboards rank only runs that are complete and judged alike: a partial
 * run of another judge, however high it scores, is never marked best nor
 * listed above a complete comparable run, and its row says why.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { standings, type StandingRun } from '../../src/core/score/index.js';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../fixtures/judged/rows.js';
import { awb } from '../support/cli.js';

const dir = tempDir('awb-standing-');

/** mcp and search, ids 1..6, turns 1..2: 24 rows graded `g`. */
const rows = (g: number, keep = 24) =>
  ['mcp', 'search']
    .flatMap((domain) => [1, 2, 3, 4, 5, 6].flatMap((id) => [1, 2].map((turn) => judgedRow({ domain, id, turn, dims: [g, g, g, g, g] }))))
    .slice(0, keep);

const counts = (total: Record<string, number>) => ({
  total: Object.values(total).reduce((a, b) => a + b, 0),
  done: 0,
  failed: 0,
  per_domain: Object.fromEntries(Object.entries(total).map(([d, n]) => [d, { total: n, done: 0, failed: 0 }])),
});

const full = writeJudged(dir, 'full.jsonl', rows(3));
writeManifest(full, { ...judgedManifest({ model: 'full', judge: 'judge-a' }), counts: counts({ mcp: 12, search: 12 }) });
// Stopped after 14 of 24 rows (all 12 of mcp, 2 of search), judged by another judge, with top grades.
const partial = writeJudged(dir, 'partial.jsonl', rows(5, 14));
writeManifest(partial, {
  ...judgedManifest({ model: 'partial', judge: 'judge-b' }),
  complete: false,
  counts: counts({ mcp: 12, search: 12 }),
});
const second = writeJudged(dir, 'second.jsonl', rows(4));
writeManifest(second, judgedManifest({ model: 'second', judge: 'judge-a' }));

describe('a partial run of another judge beside complete runs', () => {
  it('table: listed below the ranked runs, never marked best, its row saying why; counts say what is missing', async () => {
    const r = await awb('score', partial, full, second, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const at = (label: string) => lines.findIndex((l) => l.startsWith(`${label} `));
    assert.ok(at('full') < at('second') && at('second') < at('partial'), r.stdout);
    assert.doesNotMatch(lines[at('partial')]!, /\*/);
    assert.match(lines[at('second')]!, /\*/, 'the best complete run is marked');
    const under = lines[at('partial') + 1]!;
    assert.match(under, /^not ranked: 14 of 24 judged, other judge\s/);
    // All of mcp was judged; search has 2 of its 12 rows.
    assert.match(under, /\s12\/12\s+2\/2 of 12\s+14\/14 of 24\s+14\/14 of 24$/);
  });

  it('markdown, csv and json say it in place, and mark nothing of it best', async () => {
    const md = (await awb('score', partial, full, second, '-f', 'markdown')).stdout;
    const row = md.split('\n').find((l) => l.startsWith('| partial'))!;
    assert.match(row, /^\| partial \(not ranked: 14 of 24 judged, other judge\) \|/);
    assert.doesNotMatch(row, /\*\*/);
    assert.match(row, /\(2\/2 of 12\)/);

    const csv = (await awb('score', partial, full, second, '-f', 'csv')).stdout.trim().split('\n');
    const at = csv[0]!.split(',').indexOf('best');
    assert.deepEqual(csv[0]!.split(',').slice(at, at + 4), ['best', 'ranked', 'not_ranked', 'expected_rows']);
    // best, ranked, not_ranked and expected_rows (blank where every row was judged) of each of its records.
    assert.deepEqual(
      csv.filter((l) => l.startsWith('partial,')).map((l) => /,(true|false),(true|false),"([^"]*)",(\d*),/.exec(l)!.slice(1)),
      [
        ['false', 'false', 'not ranked: 14 of 24 judged, other judge', ''],
        ['false', 'false', 'not ranked: 14 of 24 judged, other judge', '12'],
        ['false', 'false', 'not ranked: 14 of 24 judged, other judge', '24'],
        ['false', 'false', 'not ranked: 14 of 24 judged, other judge', '24'],
      ],
    );

    const json = JSON.parse((await awb('score', partial, full, second, '-f', 'json')).stdout);
    assert.deepEqual(
      json.runs.map((x: { label: string; ranked: boolean }) => [x.label, x.ranked]),
      [
        ['full', true],
        ['second', true],
        ['partial', false],
      ],
    );
    const p = json.runs[2];
    assert.deepEqual(p.not_ranked, [
      { kind: 'incomplete', rows: 14, expected: 24 },
      { kind: 'other', setting: 'judge' },
    ]);
    assert.equal(p.overall.macro.best, false);
    assert.equal(json.runs[1].overall.macro.best, true);
  });

  it('the HTML report draws the same leaderboard', async () => {
    const out = join(dir, 'report.html');
    const r = await awb('report', partial, full, second, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const data = JSON.parse(/id="awb-data">(.*?)<\/script>/s.exec(readFileSync(out, 'utf8'))![1]!);
    const board = data.view.grids[0] as { rows: Array<{ cells: Array<{ text: string; sub?: string; best?: boolean }> }> };
    assert.deepEqual(
      board.rows.map((x) => x.cells[0]!.text),
      ['full', 'second', 'partial'],
    );
    const last = board.rows[2]!.cells;
    assert.equal(last[0]!.sub, 'not ranked: 14 of 24 judged, other judge');
    assert.ok(last.every((c) => !c.best));
  });

  it('compare names it beside the candidate', async () => {
    const r = await awb('compare', full, partial);
    assert.match(r.stdout, /^Candidate: partial \(.*partial\.jsonl, 14 rows; 14 of 24 judged; other judge\)$/m);
    assert.match(r.stdout, /^Baseline: {2}full \(.*full\.jsonl, 24 rows\)$/m);
  });
});

describe('a domain of one trajectory', () => {
  it('has no interval (±n/a, null in JSON), where a width of 0 would read as exact', async () => {
    const one = writeJudged(dir, 'one.jsonl', [
      ...[1, 2, 3].map((turn) => judgedRow({ domain: 'web', id: 7, turn, dims: [turn + 1, 3, 3, 3, 3] })),
      ...[1, 2, 3].map((id) => judgedRow({ domain: 'os', id, dims: [id + 1, 3, 3, 3, 3] })),
    ]);
    const table = (await awb('score', one)).stdout;
    assert.match(
      table.split('\n').find((l) => l.startsWith('Web '))!,
      / ±n\/a /,
    );
    assert.match(
      table.split('\n').find((l) => l.startsWith('OS '))!,
      / ±\d+\.\d\d /,
    );
    assert.doesNotMatch(table, /±0\.00/);
    const json = JSON.parse((await awb('score', one, '-f', 'json')).stdout);
    assert.equal(json.runs[0].domains.web.ci, null);
    assert.notEqual(json.runs[0].domains.os.ci, null);
  });
});

describe('standings', () => {
  const run = (label: string, p: Partial<StandingRun['provenance']>, rows = 10): StandingRun => ({
    label,
    provenance: { manifest: 'found', ...p },
    domains: ['mcp'],
    rows: { mcp: rows },
  });

  it('ranks against the settings most complete runs share; the first listed on a tie', () => {
    const s = standings([run('a', { judge: 'x' }), run('b', { judge: 'y' }), run('c', { judge: 'y' })]);
    assert.deepEqual(
      s.map((x) => x.unranked),
      [[{ kind: 'other', setting: 'judge' }], [], []],
    );
    const tie = standings([run('a', { judge: 'x' }), run('b', { judge: 'y' })]);
    assert.deepEqual(
      tie.map((x) => x.ranked),
      [true, false],
    );
  });

  it('never ranks an incomplete run or one of mixed settings; a run without a manifest cannot be checked and stays ranked', () => {
    const s = standings([
      run('a', { judge: 'x', complete: false, expectedRows: 30 }),
      run('b', { judge: 'x', mixed: [{ stage: 'judge', reason: 'sampling differs' }] }),
      { ...run('c', {}), provenance: { manifest: 'missing' } },
      run('d', { judge: 'x', history: 'full' }),
      run('e', { judge: 'x', history: 'none' }, 12),
    ]);
    assert.deepEqual(
      s.map((x) => x.unranked),
      [[{ kind: 'incomplete', rows: 10, expected: 30 }], [{ kind: 'mixed' }], [], [], [{ kind: 'other', setting: 'history' }]],
    );
  });
});
