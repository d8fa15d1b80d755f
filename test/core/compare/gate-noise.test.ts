/*
 * The regression gate under judge noise alone. A CI-sized subset (129 rows,
 * 4 to 14 trajectories per domain) is judged again and again: the same
 * predictions, only the judge's sampling differs. Comparing two such runs,
 * the gate must fail at most 5% of the time even at --fail-below 0 (the
 * hardest case: no true difference sits right on the boundary), and still
 * catch a real regression.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mulberry32 } from '../../../src/core/score/bootstrap.js';
import { applyGate, compareRecords } from '../../../src/core/compare/index.js';
import type { JudgedRecord } from '../../../src/core/score/index.js';
import { DOMAINS } from '../../../src/core/domains.js';

const TRAJECTORIES = [4, 6, 5, 14, 4, 5, 6]; // per domain, in DOMAINS order: 44 trajectories
const ROWS = 129;

interface Row {
  domain: string;
  id: number;
  turn: number;
  /** The prediction's true quality on the 1-5 scale. */
  quality: number;
}

function subset(rng: () => number): Row[] {
  const rows: Row[] = [];
  const trajectories = DOMAINS.flatMap((domain, d) => Array.from({ length: TRAJECTORIES[d]! }, (_, i) => ({ domain, id: i + 1 })));
  // Turns per trajectory: 1 to 5, then topped up round-robin to exactly ROWS rows.
  const turns = trajectories.map(() => 1 + Math.floor(rng() * 5));
  for (let i = 0; turns.reduce((a, b) => a + b, 0) !== ROWS; i = (i + 1) % turns.length) {
    const total = turns.reduce((a, b) => a + b, 0);
    if (total < ROWS) turns[i]!++;
    else if (turns[i]! > 1) turns[i]!--;
  }
  trajectories.forEach((t, i) => {
    const level = 1.8 + rng() * 2.4; // some trajectories are simulated well, some badly
    for (let turn = 1; turn <= turns[i]!; turn++) rows.push({ ...t, turn, quality: level + (rng() - 0.5) });
  });
  return rows;
}

function normal(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/**
 * One judge pass: every dimension graded round(quality + noise), clamped to
 * 1-5. The noise has a part shared by a trajectory's turns (the judge reads
 * the same history for all of them) and a part per grade.
 */
function judge(rows: readonly Row[], rng: () => number, shift: (r: Row) => number = () => 0): JudgedRecord[] {
  const shared = new Map<string, number>();
  return rows.map((r, lineNo) => {
    const cluster = `${r.domain}:${r.id}`;
    if (!shared.has(cluster)) shared.set(cluster, 0.35 * normal(rng));
    const dims = Array.from({ length: 5 }, () => {
      const g = Math.round(r.quality + shift(r) + shared.get(cluster)! + 0.8 * normal(rng));
      return 60 * Math.min(5, Math.max(1, g));
    });
    return {
      key: `${cluster}:${r.turn}:fp`,
      cluster,
      domain: r.domain,
      turn: r.turn,
      dims,
      total: Math.round(dims.reduce((a, b) => a + b, 0) / 5),
      failed: false,
      noGeneration: false,
      noOutput: false,
      requestFailed: false,
      kind: 'judged',
      mode: 'rubric',
      lineNo: lineNo + 1,
    };
  });
}

/** The largest count of false alarms in `reps` that is still consistent (one-sided, 1%) with a rate of 5%. */
function consistentWithFivePercent(reps: number): number {
  return Math.floor(reps * 0.05 + 2.33 * Math.sqrt(reps * 0.05 * 0.95));
}

describe('the gate under judge noise (129 rows, 4-14 trajectories per domain)', () => {
  it('holds the false-alarm rate at 5% at --fail-below 0, where eight uncorrected 95% intervals fail far more often', () => {
    const rng = mulberry32(20260624);
    const reps = 300;
    let gateFailures = 0;
    let uncorrected = 0;
    let intervals = 0;
    let covered = 0;
    for (let rep = 0; rep < reps; rep++) {
      const rows = subset(rng);
      const result = compareRecords(judge(rows, rng), judge(rows, rng));
      const gate = applyGate(result, { threshold: 0 });
      // Overall and SWE (14 trajectories) are tested; the others are too small to conclude anything, and say so.
      assert.deepEqual(gate.tests.map((t) => t.name).sort(), ['Overall', 'SWE']);
      assert.equal(gate.inconclusive.length, 6);
      if (gate.failed) gateFailures++;
      const lines = [result.overall, ...result.domains];
      if (lines.some((d) => d.ci!.hi < 0)) uncorrected++;
      for (const d of lines) {
        intervals++;
        if (d.ci!.lo <= 0 && d.ci!.hi >= 0) covered++;
      }
    }
    // At --fail-below 0 "no difference" sits on the null's boundary, where the test is exact: about 5%, never clearly more.
    assert.ok(gateFailures <= consistentWithFivePercent(reps), `false alarms: ${gateFailures} of ${reps}`);
    // The old kind of rule, any of eight uncorrected 95% intervals below 0, on the same comparisons.
    assert.ok(uncorrected / reps > 0.12, `uncorrected rate ${uncorrected / reps}: the simulation should be hard`);
    // Each two-sided 95% interval keeps its coverage with as few as four trajectories.
    assert.ok(covered / intervals >= 0.94, `coverage ${covered / intervals}`);
  });

  it('stays below 5% at --fail-below 1, the CI setting where 8 of 30 runs used to fail', () => {
    const rng = mulberry32(7);
    const reps = 200;
    let failures = 0;
    for (let rep = 0; rep < reps; rep++) {
      const rows = subset(rng);
      if (applyGate(compareRecords(judge(rows, rng), judge(rows, rng)), { threshold: 1 }).failed) failures++;
    }
    assert.ok(failures / reps <= 0.05, `false-alarm rate ${failures / reps}`);
  });

  it('still catches a real regression, overall or in one domain', () => {
    const rng = mulberry32(99);
    let overall = 0;
    let swe = 0;
    const reps = 50;
    for (let rep = 0; rep < reps; rep++) {
      const rows = subset(rng);
      const base = judge(rows, rng);
      // Every prediction half a grade worse: -12.5 points.
      const everywhere = applyGate(
        compareRecords(
          base,
          judge(rows, rng, () => -0.5),
        ),
        { threshold: 1 },
      );
      if (everywhere.tests.some((t) => t.name === 'Overall' && t.rejected)) overall++;
      // One domain a full grade worse: -25 points on SWE only.
      const one = applyGate(
        compareRecords(
          base,
          judge(rows, rng, (r) => (r.domain === 'swe' ? -1 : 0)),
        ),
        { threshold: 1 },
      );
      if (one.tests.some((t) => t.name === 'SWE' && t.rejected)) swe++;
    }
    assert.ok(overall / reps >= 0.9, `overall regression caught in ${overall} of ${reps}`);
    assert.ok(swe / reps >= 0.9, `SWE regression caught in ${swe} of ${reps}`);
  });
});
