import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate, clustersByDomain, scoreIntervals } from '../../../src/core/score/aggregate.js';
import {
  bootstrapClusters,
  bootstrapGroups,
  deriveSeed,
  groupClusters,
  mulberry32,
  percentileInterval,
  stratifiedIntervals,
} from '../../../src/core/score/bootstrap.js';
import { normalizedFloat, normalizedMean } from '../../../src/core/score/exact.js';
import { readJudged, type JudgedRecord } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';

const dir = tempDir('awb-bootstrap-');
const settings = { resamples: 400, seed: 7 };

/** mulberry32 as published (Tommy Ettinger's constants), written out separately from the implementation under test. */
function referenceMulberry32(seed: number): () => number {
  let state = seed | 0;
  return function () {
    state = (state + 0x6d2b79f5) | 0;
    let z = Math.imul(state ^ (state >>> 15), 1 | state);
    z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

async function records(name: string, rows: Array<Record<string, unknown>>): Promise<JudgedRecord[]> {
  return (await readJudged(writeJudged(dir, name, rows))).records;
}

/** A deterministic mix of grades over several domains, trajectories of 1-4 turns. */
function mixedRows(): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  let k = 0;
  for (const domain of ['mcp', 'search', 'web']) {
    for (let id = 1; id <= 15; id++) {
      for (let turn = 1; turn <= 1 + (id % 4); turn++) {
        k++;
        const g = 1 + ((k * 7 + id * 3) % 5);
        rows.push(judgedRow({ domain, id, turn, dims: [g, Math.min(5, g + 1), g, g, 3], failed: k % 13 === 0 ? 1 : 0 }));
      }
    }
  }
  return rows;
}

describe('PRNG', () => {
  it('is deterministic and matches the reference mulberry32', () => {
    for (const seed of [0, 1, 7, 20260624, 4294967295]) {
      const a = mulberry32(seed);
      const b = mulberry32(seed);
      const ref = referenceMulberry32(seed);
      for (let i = 0; i < 1000; i++) {
        const x = a();
        assert.equal(x, b());
        assert.equal(x, ref());
        assert.ok(x >= 0 && x < 1);
      }
    }
    assert.notEqual(mulberry32(1)(), mulberry32(2)());
  });

  it('derives distinct, stable stream seeds per label', () => {
    assert.equal(deriveSeed(7, 'group:mcp'), deriveSeed(7, 'group:mcp'));
    assert.notEqual(deriveSeed(7, 'group:mcp'), deriveSeed(7, 'group:web'));
    assert.notEqual(deriveSeed(7, 'group:mcp'), deriveSeed(8, 'group:mcp'));
  });
});

describe('cluster bootstrap', () => {
  it('reproduces a tiny case drawn independently with the same stream', () => {
    // Three trajectories: a single row at grade 5, a single row at 1, two rows at 4 and 2.
    const clusters = [
      { sum: 300, n: 1 },
      { sum: 60, n: 1 },
      { sum: 360, n: 2 },
    ];
    const got = bootstrapClusters(clusters, { resamples: 5, seed: 42 }, 'group:mcp', normalizedFloat);
    const rng = referenceMulberry32(deriveSeed(42, 'group:mcp'));
    const expected = Array.from({ length: 5 }, () => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < 3; i++) {
        const c = clusters[Math.floor(rng() * 3)]!;
        sum += c.sum;
        n += c.n;
      }
      return (sum / (60 * n) - 1) * 25;
    });
    assert.deepEqual(
      [...got].map((x) => x.toFixed(9)),
      expected.map((x) => x.toFixed(9)),
    );
  });

  it('keeps the turns of a trajectory together', async () => {
    // Trajectory A: two turns at 5; trajectory B: one turn at 1. Drawing two trajectories gives
    // AA -> 100, AB -> (5+5+1)/3 = 11/3 -> 66.67, BB -> 0. Drawing rows could also give e.g. 33.33.
    const recs = await records('together.jsonl', [
      judgedRow({ id: 'A', turn: 1, dims: [5, 5, 5, 5, 5] }),
      judgedRow({ id: 'A', turn: 2, dims: [5, 5, 5, 5, 5] }),
      judgedRow({ id: 'B', turn: 1, dims: [1, 1, 1, 1, 1] }),
    ]);
    const clusters = clustersByDomain(recs, { failuresAsLowest: false }).get('mcp')!;
    assert.deepEqual(clusters, [
      { sum: 600, n: 2 },
      { sum: 60, n: 1 },
    ]);
    const samples = bootstrapClusters(clusters, { resamples: 300, seed: 3 }, 'group:mcp', normalizedFloat);
    const allowed = [100, 200 / 3, 0];
    const seen = new Set<number>();
    for (const s of samples) {
      const i = allowed.findIndex((a) => Math.abs(a - s) < 1e-9);
      assert.notEqual(i, -1, `resample ${s} mixes rows of different trajectories`);
      seen.add(i);
    }
    assert.equal(seen.size, 3);
  });

  it('gives intervals that contain the point estimates, reproducibly and independent of row order', async () => {
    const rows = mixedRows();
    const recs = await records('mixed.jsonl', rows);
    const opts = { failuresAsLowest: false };
    const point = aggregate(recs, opts);
    const ci = scoreIntervals(recs, opts, settings);
    for (const d of point.domains) {
      const i = ci.domains.get(d.domain)!;
      const p = d.score!.toNumber();
      assert.ok(i.lo <= p && p <= i.hi, `${d.domain}: ${p} outside [${i.lo}, ${i.hi}]`);
      assert.ok(i.hi - i.lo > 0.1, 'a non-degenerate interval');
    }
    const macro = point.macro!.toNumber();
    assert.ok(ci.macro!.lo <= macro && macro <= ci.macro!.hi);
    const micro = normalizedMean(point.micro.sum, point.micro.count)!.toNumber();
    assert.ok(ci.micro!.lo <= micro && micro <= ci.micro!.hi);

    assert.deepEqual(scoreIntervals(recs, opts, settings), ci);
    const reversed = await records('mixed-reversed.jsonl', [...rows].reverse());
    assert.deepEqual(scoreIntervals(reversed, opts, settings), ci);
    assert.notDeepEqual(scoreIntervals(recs, opts, { ...settings, seed: 8 }), ci);
  });

  it("keeps a domain's interval when other domains come and go", async () => {
    const rows = mixedRows();
    const all = await records('all-domains.jsonl', rows);
    const mcpOnly = await records(
      'mcp-only.jsonl',
      rows.filter((r) => r.task === 'agentworld/mcp'),
    );
    const opts = { failuresAsLowest: false };
    assert.deepEqual(scoreIntervals(mcpOnly, opts, settings).domains.get('mcp'), scoreIntervals(all, opts, settings).domains.get('mcp'));
  });

  it('averages independently resampled groups for the macro statistic', () => {
    const groups = new Map([
      [
        'a',
        [
          { sum: 300, n: 1 },
          { sum: 60, n: 1 },
        ],
      ],
      ['b', [{ sum: 180, n: 1 }]],
    ]);
    const out = bootstrapGroups(groups, { resamples: 50, seed: 1 }, normalizedFloat);
    for (let i = 0; i < 50; i++) assert.equal(out.mean[i], (out.groups.get('a')![i]! + out.groups.get('b')![i]!) / 2);
    // Group b has one trajectory at grade 3: every resample is 50.
    assert.ok(out.groups.get('b')!.every((x) => x === 50));
  });
});

describe('grouped clusters (shared by the leaderboard and the judge modes)', () => {
  const parts = [
    { group: 'web', cluster: 'web:2', sum: 1, n: 1 },
    { group: 'zz-extra', cluster: 'z:1', sum: 5, n: 1 },
    { group: 'mcp', cluster: 'mcp:b', sum: 0, n: 0 },
    { group: 'web', cluster: 'web:1', sum: 2, n: 1 },
    { group: 'web', cluster: 'web:2', sum: 3, n: 1 },
    { group: 'mcp', cluster: 'mcp:a', sum: 0, n: 0 },
  ];

  it('sums each trajectory, orders groups as the leaderboard and trajectories by name, and keeps trajectories that count nothing', () => {
    const grouped = groupClusters(parts);
    assert.deepEqual([...grouped.keys()], ['mcp', 'web', 'zz-extra']);
    assert.deepEqual(grouped.get('web'), [
      { sum: 2, n: 1 },
      { sum: 4, n: 2 },
    ]);
    assert.deepEqual(grouped.get('mcp'), [
      { sum: 0, n: 0 },
      { sum: 0, n: 0 },
    ]);
  });

  it('gives a group without counted rows no interval and leaves it out of the mean', () => {
    const stat = (sum: number, n: number) => (n > 0 ? sum / n : NaN);
    const grouped = groupClusters(parts);
    const got = stratifiedIntervals(grouped, settings, stat);
    assert.deepEqual([...got.groups.keys()], ['mcp', 'web', 'zz-extra']);
    assert.equal(got.groups.get('mcp'), undefined);
    const scored = new Map([...grouped].filter(([g]) => g !== 'mcp'));
    const direct = bootstrapGroups(scored, settings, stat);
    assert.deepEqual(got.groups.get('web'), percentileInterval(direct.groups.get('web')!));
    assert.deepEqual(got.mean, percentileInterval(direct.mean));
    assert.equal(stratifiedIntervals(new Map([['mcp', grouped.get('mcp')!]]), settings, stat).mean, undefined);
  });
});

describe('percentile interval', () => {
  it('interpolates between order statistics and ignores empty resamples', () => {
    const samples = Float64Array.from({ length: 101 }, (_, i) => 100 - i);
    assert.deepEqual(percentileInterval(samples), { lo: 2.5, hi: 97.5 });
    assert.deepEqual(percentileInterval(Float64Array.from([NaN, 1, NaN, 1])), { lo: 1, hi: 1 });
    assert.equal(percentileInterval(Float64Array.from([NaN])), undefined);
  });
});
