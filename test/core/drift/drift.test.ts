import { test } from 'node:test';
import assert from 'node:assert/strict';
import { curvesOf, horizonOrder, OVERALL } from '../../../src/core/drift/index.js';
import type { JudgedRecord } from '../../../src/core/score/index.js';

/** A judged record with a total of `grade` (1–5), in sixtieths. */
const rec = (domain: string, traj: number, turn: number, grade: number): JudgedRecord => ({
  key: `${domain}/${traj}/${turn}`,
  cluster: `${domain}/${traj}`,
  domain,
  turn,
  dims: [0, 0, 0, 0, 0],
  total: grade * 60,
  failed: false,
  requestFailed: false,
  noGeneration: false,
  noOutput: false,
  lineNo: 1,
  mode: 'rubric',
});

test('horizons in curve order: 0, then numbers, then all', () => {
  assert.deepEqual([4, 'all', 0, 1].sort(horizonOrder as (a: unknown, b: unknown) => number), [0, 1, 4, 'all']);
});

test('scores and drops are exact; the drop is S(0) − S(H); Overall is the mean of the domains', () => {
  // terminal: grades 5 → 4 (−25 points); swe: 3 → 3.
  const rows = [
    ...[1, 2, 3, 4].map((t) => [rec('terminal', t, 1, 5), rec('terminal', t, 1, 4)]),
    ...[1, 2].map((t) => [rec('swe', t, 1, 3), rec('swe', t, 1, 3)]),
  ];
  const curves = curvesOf(rows, [0, 2], { resamples: 200, seed: 1 });
  const [terminal, swe, overall] = [curves.find((c) => c.scope === 'terminal')!, curves.find((c) => c.scope === 'swe')!, curves.at(-1)!];
  assert.equal(overall.scope, OVERALL);
  assert.equal(terminal.points[0]!.score!.toFixed(), '100.00');
  assert.equal(terminal.points[1]!.drop!.toFixed(), '25.00');
  assert.equal(swe.points[1]!.drop!.toFixed(), '0.00');
  assert.equal(overall.points[1]!.drop!.toFixed(), '12.50');
  // Every trajectory falls by the same 25 points: the paired interval is that point, above 0.
  assert.deepEqual(terminal.points[1]!.dropCi, { lo: 25, hi: 25 });
  assert.equal(terminal.firstSignificant, 2);
  assert.equal(swe.firstSignificant, undefined);
  assert.equal(overall.firstSignificant, 2);
  assert.equal(terminal.points[0]!.significant, false);
});

test('without intervals no drop is significant', () => {
  const rows = [1, 2, 3].map((t) => [rec('mcp', t, 1, 5), rec('mcp', t, 1, 1)]);
  const curves = curvesOf(rows, [0, 'all']);
  assert.equal(curves[0]!.points[1]!.drop!.toFixed(), '100.00');
  assert.equal(curves[0]!.points[1]!.significant, false);
  assert.equal(curves[0]!.firstSignificant, undefined);
});
