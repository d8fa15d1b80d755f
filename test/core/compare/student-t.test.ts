/*
 * Student's t, against reference quantiles (@stdlib/stats-base-dists-t-quantile, computed once outside the
 * tests): integer and fractional degrees of freedom as the CR2 and Welch-Satterthwaite spreads give them,
 * up to a million (a spread's df is at most its trajectories, a few hundred).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { studentCdf, studentQuantile } from '../../../src/core/compare/student-t.js';
import { tInterval } from '../../../src/core/compare/spread.js';

const REFERENCE: Array<[p: number, df: number, t: number]> = [
  [0.975, 1, 12.706204736174694],
  [0.95, 1, 6.313751514675037],
  [0.975, 2.5, 3.574654842003682],
  [0.95, 2.5, 2.5582186141359355],
  [0.975, 4, 2.776445105197794],
  [0.95, 4, 2.1318467863266495],
  [0.975, 30, 2.0422724563012378],
  [0.95, 30, 1.6972608865939576],
  [0.975, 1e6, 1.9599663568141068],
];

test('quantiles match the reference to 1e-9, at integer and fractional degrees of freedom', () => {
  for (const [p, df, t] of REFERENCE) {
    assert.ok(Math.abs(studentQuantile(p, df) - t) < 1e-9 * t, `t(${p}, ${df}) = ${studentQuantile(p, df)}, not ${t}`);
    assert.ok(Math.abs(studentQuantile(1 - p, df) + t) < 1e-9 * t, 'symmetric');
    assert.ok(Math.abs(studentCdf(t, df) - p) < 1e-10);
  }
});

test('the ends are infinite', () => {
  assert.equal(studentQuantile(1, 5), Infinity);
  assert.equal(studentQuantile(0, 5), -Infinity);
});

test('the t interval is the delta plus or minus the quantile times the standard error', () => {
  const i = tInterval(10, { se: 2, df: 4 })!;
  assert.ok(Math.abs(i.hi - (10 + 2 * 2.776445105197794)) < 1e-9);
  assert.ok(Math.abs(i.lo - (10 - 2 * 2.776445105197794)) < 1e-9);
  assert.equal(tInterval(10, undefined), undefined);
});
