import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { aggregate, statScore, turnBucket, TURN_BUCKETS } from '../../../src/core/score/aggregate.js';
import { BATCH_PRICE, costOf, type UsageTotals } from '../../../src/core/score/usage.js';
import { scoreFiles } from '../../../src/core/score/score-files.js';
import { isFault } from '../../support/fault-kind.js';
import { readProvenance, type CheckedSetting } from '../../../src/core/score/index.js';
import { Ratio, formatFixed, meanOf, normalizedMean, rawMean, toSixtieths } from '../../../src/core/score/exact.js';
import { readJudged } from '../../../src/core/score/index.js';
import { PUBLISHED } from '../../../src/core/dataset/published.js';
import { judgedManifest, judgedRow, scoreRequestOf, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';
import { jsonl } from '../../support/dataset.js';

const dir = tempDir('awb-aggregate-');

async function load(name: string, rows: Array<Record<string, unknown>>) {
  return readJudged(writeJudged(dir, name, rows));
}

const text = (r: Ratio | undefined) => formatFixed(r);
const dimText = (d: { dims: Array<{ sum: number; count: number }> }, i: number) => text(normalizedMean(d.dims[i]!.sum, d.dims[i]!.count));

/*
 * Hand-worked case. mcp:
 *   r1 [5,4,3,4,4] total 4; r2 [3,3,3,3,3] total 3; r3 [4,0,4,4,4] total 4
 *   r4 failed (official bare row: only failed + error_message)
 *   r5 every dimension 0, failed 0 -> counted as failed
 *   valid 3 of 5. format (5+3+4)/3 = 4 -> (4-1)/4*100 = 75.00
 *   factuality (4+3)/2 = 3.5 -> 62.50 (the 0 is skipped)
 *   consistency (3+3+4)/3 = 10/3 -> 58.33; realism and quality (4+3+4)/3 = 11/3 -> 66.67
 *   total (4+3+4)/3 = 11/3 -> 66.67
 * search (realism never scored):
 *   s1 [2,2,2,0,2] total 2; s2 [5,5,5,0,5] total 5; s3 [3,3,3,0,3] total 3; s4 [1,1,1,0,1] total 1
 *   total (2+5+3+1)/4 = 11/4 -> 43.75; realism: no values -> n/a
 * macro = (200/3 + 43.75)/2 = 55.2083.. -> 55.21
 * micro = (4+3+4+2+5+3+1)/7 = 22/7 -> (22/7-1)*25 = 375/7 = 53.571.. -> 53.57
 */
const handRows = [
  judgedRow({ domain: 'mcp', id: 1, dims: [5, 4, 3, 4, 4] }),
  judgedRow({ domain: 'mcp', id: 2, dims: [3, 3, 3, 3, 3] }),
  judgedRow({ domain: 'mcp', id: 3, dims: [4, 0, 4, 4, 4] }),
  judgedRow({ domain: 'mcp', id: 4, bare: true }),
  judgedRow({ domain: 'mcp', id: 5, dims: [0, 0, 0, 0, 0], total: 0, failed: 0 }),
  judgedRow({ domain: 'search', id: 1, dims: [2, 2, 2, 0, 2] }),
  judgedRow({ domain: 'search', id: 2, dims: [5, 5, 5, 0, 5] }),
  judgedRow({ domain: 'search', id: 3, dims: [3, 3, 3, 0, 3] }),
  judgedRow({ domain: 'search', id: 4, dims: [1, 1, 1, 0, 1] }),
];

describe('aggregation (official rules, exact)', () => {
  it('matches the hand-worked means, valid counts and n/a', async () => {
    const { records } = await load('hand.jsonl', handRows);
    const s = aggregate(records, { failuresAsLowest: false });
    const [mcp, search] = s.domains;
    assert.equal(mcp!.domain, 'mcp');
    assert.deepEqual([mcp!.rows, mcp!.valid, mcp!.failed], [5, 3, 2]);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => dimText(mcp!, i)),
      ['75.00', '62.50', '58.33', '66.67', '66.67'],
    );
    assert.equal(text(mcp!.score), '66.67');
    assert.equal(formatFixed(rawMean(mcp!.total.sum, mcp!.total.count)), '3.67');
    assert.equal(search!.domain, 'search');
    assert.equal(text(search!.score), '43.75');
    assert.equal(dimText(search!, 3), 'n/a', 'a dimension with no values is n/a, never -25.00');
    assert.equal(text(s.macro), '55.21');
    assert.equal(text(normalizedMean(s.micro.sum, s.micro.count)), '53.57');
    assert.equal(s.macroDomains, 2);
    assert.deepEqual([s.rows, s.valid, s.failed], [9, 7, 2]);
  });

  it('counts a row with every dimension 0 as failed even when failed is 0', async () => {
    const { records } = await load('zeros.jsonl', [
      judgedRow({ id: 9, dims: [0, 0, 0, 0, 0], total: 0, failed: 0 }),
      judgedRow({ id: 10 }),
    ]);
    assert.equal(records[0]!.failed, true);
    const s = aggregate(records, { failuresAsLowest: false });
    assert.deepEqual([s.valid, s.failed], [1, 1]);
    assert.equal(s.micro.count, 1);
  });

  /*
   * --failures-as-lowest on the hand case: r4 and r5 enter at grade 1.
   * mcp total (4+3+4+1+1)/5 = 13/5 = 2.6 -> 40.00; format (5+3+4+1+1)/5 = 2.8 -> 45.00
   * factuality (4+3+1+1)/4 = 9/4 -> 31.25; search unchanged 43.75
   * macro (40 + 43.75)/2 = 41.875 -> 41.88 (tie, 7 odd -> up); micro (13+11)/9 = 8/3 -> 41.67
   * valid counts do not change: the failed rows are still reported as failed.
   */
  it('failures-as-lowest scores failed rows at grade 1', async () => {
    const { records } = await load('hand-lowest.jsonl', handRows);
    const s = aggregate(records, { failuresAsLowest: true });
    const mcp = s.domains[0]!;
    assert.equal(text(mcp.score), '40.00');
    assert.equal(dimText(mcp, 0), '45.00');
    assert.equal(dimText(mcp, 1), '31.25');
    assert.deepEqual([mcp.valid, mcp.failed], [3, 2]);
    assert.equal(text(s.macro), '41.88');
    assert.equal(text(normalizedMean(s.micro.sum, s.micro.count)), '41.67');
  });

  it('macro and micro differ when domains have different sizes', async () => {
    // mcp: one row at 5 -> 100; search: three rows at 1 -> 0. macro 50.00, micro (5+1+1+1)/4 = 2 -> 25.00
    const { records } = await load('sizes.jsonl', [
      judgedRow({ domain: 'mcp', id: 1, dims: [5, 5, 5, 5, 5] }),
      ...[1, 2, 3].map((id) => judgedRow({ domain: 'search', id, dims: [1, 1, 1, 1, 1] })),
    ]);
    const s = aggregate(records, { failuresAsLowest: false });
    assert.equal(text(s.macro), '50.00');
    assert.equal(text(normalizedMean(s.micro.sum, s.micro.count)), '25.00');
  });

  it('rounds half to even on exact ties (200 rows summing to 225 -> 3.12, where toFixed gives 3.13)', async () => {
    // 25 rows at grade 2 and 175 at grade 1: sum 225, mean 1.125, (1.125-1)/4*100 = 3.125 exactly.
    const rows = Array.from({ length: 200 }, (_, i) => {
      const g = i < 25 ? 2 : 1;
      return judgedRow({ domain: 'web', id: i, dims: [g, g, g, g, g] });
    });
    const { records } = await load('tie.jsonl', rows);
    const web = aggregate(records, { failuresAsLowest: false }).domains[0]!;
    assert.equal(text(web.score), '3.12');
    assert.equal(dimText(web, 0), '3.12');
    assert.equal((3.125).toFixed(2), '3.13', 'the trap the exact formatter avoids');
  });

  it('prints what the official script prints where the exact mean is a tie no double holds (58.125 -> 58.13)', async () => {
    // Totals 13/4 and 17/5: exact mean 133/40, score 58.125. The script averages the doubles 3.25 and
    // 3.4, and the double nearest their mean, 3.325, lies just above it: it prints 58.13 (measured).
    const rows = [judgedRow({ domain: 'mcp', id: 1, dims: [4, 3, 3, 3, 0] }), judgedRow({ domain: 'mcp', id: 2, dims: [4, 4, 3, 3, 3] })];
    const { records } = await load('double-tie.jsonl', rows);
    const s = aggregate(records, { failuresAsLowest: false });
    assert.equal(text(normalizedMean(s.domains[0]!.total.sum, s.domains[0]!.total.count)), '58.12', 'the exact value rounds down');
    assert.equal(text(s.domains[0]!.score), '58.13');
    assert.equal(text(statScore(s.micro)), '58.13');
    assert.equal(text(s.macro), '58.13');
    assert.equal(text(statScore(s.domains[0]!.dims[1]!)), '62.50');
  });

  it('sorts domains in leaderboard order, unknown ones last', async () => {
    const { records } = await load(
      'order.jsonl',
      ['zeta', 'os', 'mcp', 'web'].map((d) => judgedRow({ domain: d })),
    );
    assert.deepEqual(
      aggregate(records, { failuresAsLowest: false }).domains.map((d) => d.domain),
      ['mcp', 'web', 'os', 'zeta'],
    );
  });

  it('breaks totals down by turn bucket with counts', async () => {
    assert.deepEqual([1, 2, 3, 4, 5, 8, 9, 16, 17, 99].map(turnBucket), [0, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    assert.deepEqual(
      TURN_BUCKETS.map((b) => b.label),
      ['1', '2', '3-4', '5-8', '9-16', '17+'],
    );
    const { records } = await load('turns.jsonl', [
      judgedRow({ id: 1, turn: 1, dims: [5, 5, 5, 5, 5] }),
      judgedRow({ id: 1, turn: 3, dims: [3, 3, 3, 3, 3] }),
      judgedRow({ id: 1, turn: 4, dims: [1, 1, 1, 1, 1] }),
      judgedRow({ id: 2, turn: 4, failed: 1, dims: [0, 0, 0, 0, 0], total: 0 }),
      judgedRow({ id: 1, turn: 20, dims: [4, 4, 4, 4, 4] }),
    ]);
    const turns = aggregate(records, { failuresAsLowest: false }).domains[0]!.turns;
    // bucket 3-4: grades 3 and 1 -> mean 2 -> 25.00, 2 valid of 3
    assert.deepEqual(
      turns.map((t) => [t.bucket, t.valid, t.rows, text(normalizedMean(t.total.sum, t.total.count))]),
      [
        ['1', 1, 1, '100.00'],
        ['3-4', 2, 3, '25.00'],
        ['17+', 1, 1, '75.00'],
      ],
    );
  });
});

describe('exact formatting', () => {
  it('rounds half to even on exact ties only', () => {
    assert.equal(Ratio.of(3125, 1000).toFixed(2), '3.12');
    assert.equal(Ratio.of(3135, 1000).toFixed(2), '3.14');
    assert.equal(Ratio.of(31251, 10000).toFixed(2), '3.13');
    assert.equal(Ratio.of(-3125, 1000).toFixed(2), '-3.12');
    assert.equal(Ratio.of(-1, 1000).toFixed(2), '0.00');
    assert.equal(Ratio.of(200, 3).toFixed(2), '66.67');
    assert.equal(formatFixed(70.1), '70.10');
    assert.equal(formatFixed(undefined), 'n/a');
    // 0.125 is exact in binary: a true tie, so even (0.12); toFixed says 0.13.
    assert.equal(formatFixed(0.125), '0.12');
  });

  it('nearestDouble rounds an exact ratio once, as a division of integers does', () => {
    for (let i = 1; i < 2000; i++) {
      const num = (i * 7919 * 104729) % 2 ** 40;
      const den = 1 + ((i * 15485863) % 2 ** 30);
      assert.equal(Ratio.of(num, den).nearestDouble(), num / den, `${num}/${den}`);
    }
    // The exact mean of the doubles 3.25 and 3.4 is not a double; Python's mean gives 3.325.
    assert.equal(Ratio.fromDouble(3.25).add(Ratio.fromDouble(3.4)).div(Ratio.of(2)).nearestDouble(), 3.325);
  });

  it('reads grades as sixtieths and refuses values that are not grades', () => {
    assert.equal(toSixtieths(11 / 3), 220);
    assert.equal(toSixtieths(3.75), 225);
    assert.equal(toSixtieths(0), 0);
    assert.equal(toSixtieths(3.14159), undefined);
    assert.equal(toSixtieths(0.5), undefined);
    assert.equal(toSixtieths(6), undefined);
    assert.equal(toSixtieths(-1), undefined);
  });

  it('the published 35B row averages to its Overall; every row but one agrees to the cent', () => {
    const r35 = PUBLISHED.find((p) => p.model === 'Qwen-AgentWorld-35B-A3B')!;
    assert.equal(formatFixed(meanOf(Object.values(r35.scores).map(Ratio.fromDouble))), '56.39');
    const disagree = PUBLISHED.filter((p) => {
      const m = meanOf(Object.values(p.scores).map(Ratio.fromDouble))!.toNumber();
      return Math.abs(m - p.overall) > 0.0051;
    }).map((p) => p.model);
    // As published: its domains average to 58.76 while the README prints 58.71. Kept verbatim.
    assert.deepEqual(disagree, ['Qwen-AgentWorld-397B-A17B']);
  });
});

describe('reading judged files', () => {
  it('names file, line and field for a wrong field', async () => {
    const path = writeJudged(dir, 'badfield.jsonl', [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), turn_idx: 'two' }]);
    await assert.rejects(readJudged(path), isFault('judged-field-invalid', { file: path, line: 2, field: 'turn_idx' }));
  });

  it('names file and line for bad JSON', async () => {
    const path = join(dir, 'badjson.jsonl');
    writeFileSync(path, jsonl([judgedRow({ id: 1 })]) + '{"task": "mcp", oops}\n' + jsonl([judgedRow({ id: 3 })]));
    await assert.rejects(readJudged(path), isFault('judged-line-not-json', { file: path, line: 2 }));
  });

  it('refuses a total that is not a mean of grades', async () => {
    const path = writeJudged(dir, 'badtotal.jsonl', [judgedRow({ id: 1, total: 3.14159 })]);
    await assert.rejects(readJudged(path), isFault('judged-grade-invalid', { file: path, line: 1, field: 'total_score', value: 3.14159 }));
  });

  it('names both lines of a duplicated row', async () => {
    const path = writeJudged(dir, 'dup.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 }), judgedRow({ id: 1, dims: [1, 1, 1, 1, 1] })]);
    await assert.rejects(readJudged(path), isFault('judged-row-repeated', { file: path, line: 3, earlier: 1 }));
  });

  it('keeps turns that share (domain, id, turn_idx) but differ in content', async () => {
    const a = judgedRow({ id: 7 });
    const b = { ...judgedRow({ id: 7 }), response: ['a different observation'] };
    const { records } = await load('twins.jsonl', [a, b]);
    assert.equal(records.length, 2);
    assert.notEqual(records[0]!.key, records[1]!.key);
    assert.equal(records[0]!.cluster, records[1]!.cluster);
  });

  it('skips a cut last line with a warning, keeps a whole unterminated one', async () => {
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, jsonl([judgedRow({ id: 1 })]) + JSON.stringify(judgedRow({ id: 2 })).slice(0, 40));
    const r = await readJudged(cut);
    assert.equal(r.records.length, 1);
    assert.deepEqual(r.warnings, [{ kind: 'judged-line-cut', file: cut, line: 2 }]);

    const whole = join(dir, 'whole.jsonl');
    writeFileSync(whole, jsonl([judgedRow({ id: 1 })]) + JSON.stringify(judgedRow({ id: 2 })));
    const w = await readJudged(whole);
    assert.deepEqual([w.records.length, w.warnings.length], [2, 0]);
  });

  it('accepts official rows: failed as 1.0/0.0, failed rows with only failed and error_message, task paths', async () => {
    const path = join(dir, 'official.jsonl');
    const bare = judgedRow({ id: 2, bare: true });
    writeFileSync(
      path,
      JSON.stringify(judgedRow({ id: 1 })).replace('"failed":0', '"failed":0.0') +
        '\n' +
        JSON.stringify(bare).replace('"failed":1', '"failed":1.0') +
        '\n',
    );
    const { records } = await readJudged(path);
    assert.deepEqual(
      records.map((r) => [r.domain, r.failed]),
      [
        ['mcp', false],
        ['mcp', true],
      ],
    );
  });

  it('collects usage per stage', async () => {
    const { records } = await load('usage.jsonl', [
      judgedRow({
        id: 1,
        usage: { prompt_tokens: 10, completion_tokens: 5, reasoning_tokens: 2 },
        judge_usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 64 } },
      }),
    ]);
    // Not reported is left out (unknown), not 0; a raw OpenAI usage object's prompt_tokens_details is read.
    assert.deepEqual(records[0]!.usage, { prompt: 10, completion: 5, reasoning: 2 });
    assert.deepEqual(records[0]!.judgeUsage, { prompt: 100, completion: 7, reasoning: 0, cached: 64 });
  });
});

describe('scoreFiles', () => {
  it('refuses a file with no valid rows', async () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const allFailed = writeJudged(dir, 'allfailed.jsonl', [judgedRow({ id: 1, bare: true })]);
    await assert.rejects(scoreFiles(scoreRequestOf([empty])), isFault('no-valid-judged-rows', { file: empty, rows: 0 }));
    await assert.rejects(scoreFiles(scoreRequestOf([allFailed])), isFault('no-valid-judged-rows', { file: allFailed, rows: 1 }));
  });

  it('labels runs by model name or file, disambiguating equal ones', async () => {
    const a = join(tempDir(), 'judged.jsonl');
    const b = join(tempDir(), 'judged.jsonl');
    writeFileSync(a, jsonl([judgedRow()]));
    writeFileSync(b, jsonl([judgedRow()]));
    const report = await scoreFiles(scoreRequestOf([a, b]));
    const labels = report.runs.map((r) => r.label);
    assert.equal(new Set(labels).size, 2);
    for (const l of labels) assert.match(l, /\/judged\.jsonl$/);
  });
});

describe('comparability', () => {
  it('names what differs, which runs lack provenance, and warns about a broken manifest', async () => {
    const d = tempDir('awb-comparability-');
    const files = ['x.jsonl', 'y.jsonl', 'z.jsonl', 'w.jsonl'].map((n) => writeJudged(d, n, [judgedRow()]));
    writeManifest(files[0]!, judgedManifest({ model: 'm1', judge: 'j', rubrics: 'aa'.repeat(32), commit: '1111111111111111' }));
    writeManifest(
      files[1]!,
      judgedManifest({ model: 'm2', judge: 'j', rubrics: 'bb'.repeat(32), commit: '2222222222222222', history: 'none' }),
    );
    writeFileSync(`${files[3]}.manifest.json`, '{"format": "agentworldbench-manifest", "version": 2}');
    const report = await scoreFiles(scoreRequestOf(files));
    assert.deepEqual(
      report.runs.map((r) => r.label),
      ['m1', 'm2', 'z.jsonl', 'w.jsonl'],
    );
    const differs = (setting: CheckedSetting, a: string, b: string) => ({
      kind: 'setting-differs',
      setting,
      values: [
        { value: a, runs: ['m1'] },
        { value: b, runs: ['m2'] },
      ],
    });
    assert.deepEqual(report.notes, [
      { kind: 'provenance-unknown', runs: ['z.jsonl', 'w.jsonl'] },
      differs('rubrics-set', 'aa'.repeat(32), 'bb'.repeat(32)),
      differs('history', 'full', 'none'),
      differs('dataset-commit', '1111111111111111', '2222222222222222'),
    ]);
    assert.deepEqual(
      report.warnings.map((w) => w.kind === 'manifest-invalid' && { path: w.path, field: w.field }),
      [{ path: `${files[3]}.manifest.json`, field: 'version' }],
    );
  });
  it('tells apart runs whose data is known only by hashes (no commit) when the hashes differ', async () => {
    const d = tempDir('awb-comparability-');
    const files = ['x.jsonl', 'y.jsonl', 'z.jsonl'].map((n) => writeJudged(d, n, [judgedRow()]));
    const local = (model: string, hash: string) => {
      const m = judgedManifest({ model, judge: 'j' }) as {
        dataset: Record<string, unknown>;
        upstream: { dataset: Record<string, unknown> };
      };
      for (const ds of [m.dataset, m.upstream.dataset]) {
        delete ds.commit;
        delete ds.repo;
        delete ds.revision;
        ds.sha256 = { mcp: hash };
      }
      return m;
    };
    writeManifest(files[0]!, local('m1', 'aa'.repeat(32)));
    writeManifest(files[1]!, local('m2', 'bb'.repeat(32)));
    writeManifest(files[2]!, local('m3', 'aa'.repeat(32)));
    const report = await scoreFiles(scoreRequestOf(files));
    assert.deepEqual(
      report.notes.filter((n) => n.kind === 'setting-differs' && n.setting.startsWith('dataset')),
      [
        {
          kind: 'setting-differs',
          setting: 'dataset-hashes',
          values: [
            { value: 'aa'.repeat(32), runs: ['m1', 'm3'] },
            { value: 'bb'.repeat(32), runs: ['m2'] },
          ],
        },
      ],
    );
  });
});

describe('a run whose Overall leaves a domain out', () => {
  const d = tempDir('awb-partial-');
  const complete = writeJudged(d, 'complete.jsonl', [judgedRow({ domain: 'mcp' }), judgedRow({ domain: 'swe' })]);
  const holed = writeJudged(d, 'holed.jsonl', [judgedRow({ domain: 'mcp' }), judgedRow({ domain: 'swe', failed: 1 })]);
  const leavesOut = { kind: 'overall-partial', run: 'holed.jsonl', unscored: ['swe'], totals: false, macroDomains: 1, domains: 2 };
  /** The notes about what an Overall averages (the files have no manifest: a note says so too). */
  const overallNotes = async (files: string[]) =>
    (await scoreFiles(scoreRequestOf(files))).notes.filter((n) => n.kind === 'overall-partial' || n.kind === 'domains-differ');

  it('alone: one note says so', async () => {
    assert.deepEqual(await overallNotes([holed]), [leavesOut]);
  });

  it('beside a run that averages more: only the coverage note, which names each set', async () => {
    assert.deepEqual(await overallNotes([complete, holed]), [
      {
        kind: 'domains-differ',
        sets: [
          { domains: ['mcp', 'swe'], runs: ['complete.jsonl'] },
          { domains: ['mcp'], runs: ['holed.jsonl'] },
        ],
      },
    ]);
  });

  it('beside a run that averages the same set: its own note', async () => {
    const narrow = writeJudged(d, 'narrow.jsonl', [judgedRow({ domain: 'mcp' })]);
    assert.deepEqual(await overallNotes([narrow, holed]), [leavesOut]);
  });
});

describe('cost of tokens', () => {
  const totals = (over: Partial<UsageTotals>): UsageTotals => ({
    rows: 1,
    prompt: 0,
    completion: 0,
    reasoning: 0,
    cached: 0,
    cachedRows: 1,
    batch: { prompt: 0, completion: 0, cached: 0 },
    ...over,
  });
  const prices = { input: 2, output: 8, cachedInput: 0.5 };

  it('prices cached prompt tokens at the cached price and the rest at the input price', () => {
    assert.equal(costOf(totals({ prompt: 1e6, cached: 4e5, completion: 1e5 }), prices), 0.6 * 2 + 0.4 * 0.5 + 0.1 * 8);
  });

  it('prices cached tokens at the input price without --price-cached-input', () => {
    assert.equal(costOf(totals({ prompt: 1e6, cached: 4e5 }), { input: 2, output: 8 }), 2);
  });

  it('halves the part the Batch API answered, its cached tokens at half the cached price', () => {
    const t = totals({ prompt: 3e6, cached: 1e6, completion: 2e5, batch: { prompt: 2e6, cached: 5e5, completion: 1e5 } });
    const online = 0.5 * 2 + 0.5 * 0.5 + 0.1 * 8;
    const batch = 1.5 * 2 + 0.5 * 0.5 + 0.1 * 8;
    assert.ok(Math.abs(costOf(t, prices) - (online + BATCH_PRICE * batch)) < 1e-12);
    assert.equal(BATCH_PRICE, 0.5);
  });
});

describe("a judged file's manifest that cannot be used", () => {
  it('is a warning naming the file and what is wrong, never a refusal; the run scores with unknown provenance', async () => {
    const dir = tempDir();
    const file = join(dir, 'judged.jsonl');
    assert.deepEqual(await readProvenance(file), { provenance: { manifest: 'missing' }, warnings: [] });
    const path = `${file}.manifest.json`;
    for (const [text, why] of [
      ['{', { kind: 'manifest-not-json', path }],
      ['{"stage": 3}', { kind: 'manifest-invalid', path, field: 'format' }],
    ] as const) {
      writeFileSync(path, text);
      const got = await readProvenance(file);
      assert.equal(got.provenance.manifest, 'invalid');
      assert.equal(got.warnings.length, 1);
      // The schema's own words (`problem`) are the words snapshot's to pin.
      const { problem: _, ...warning } = got.warnings[0]! as { problem?: string };
      assert.deepEqual(warning, why);
    }
  });
});
