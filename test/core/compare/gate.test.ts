import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyGate, compareRecords } from '../../../src/core/compare/index.js';
import type { JudgedRecord } from '../../../src/core/score/index.js';
import { emptyComparison } from '../../support/empty-comparison.js';

/* The gate of compare --fail-below over records: its tests, the family's level, and what fails it. */

describe('the gate', () => {
  it('tests each line by sign flips, holds the family to 5% with Holm, and calls too few trajectories untested', () => {
    const rec = (domain: string, id: number, grade: number): JudgedRecord => ({
      key: `${domain}:${id}:1:fp`,
      cluster: `${domain}:${id}`,
      domain,
      turn: 1,
      dims: [60 * grade, 60 * grade, 60 * grade, 60 * grade, 60 * grade],
      total: 60 * grade,
      failed: false,
      noGeneration: false,
      noOutput: false,
      requestFailed: false,
      mode: 'rubric',
      lineNo: id,
    });
    const run = (domains: string[], trajectories: number, grade: (d: string, id: number) => number) =>
      domains.flatMap((d) => Array.from({ length: trajectories }, (_, i) => rec(d, i + 1, grade(d, i + 1))));
    const seven = ['mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'];
    // MCP: 9 of 10 trajectories lose a grade, one gains one. Sign flips: 11 of the 1,024 patterns are as low, p = 0.0107.
    const drop = (d: string, id: number) => (d === 'mcp' ? (id === 1 ? 4 : 2) : 3);
    const alone = applyGate(
      compareRecords(
        run(['mcp'], 10, () => 3),
        run(['mcp'], 10, drop),
      ),
      { threshold: 0 },
    );
    assert.deepEqual(
      alone.tests.map((t) => [t.name, t.p]),
      [
        ['Overall', 11 / 1024],
        ['MCP', 11 / 1024],
      ],
    );
    assert.equal(alone.failed, true, 'two tests: 0.0107 is below 5%/2');
    const among = applyGate(
      compareRecords(
        run(seven, 10, () => 3),
        run(seven, 10, drop),
      ),
      { threshold: 0 },
    );
    assert.equal(among.tests.length, 8);
    assert.equal(among.tests[0]!.level, 0.05 / 8);
    assert.equal(among.failed, false, 'eight tests: 0.0107 is above 5%/8');
    // The threshold shifts every row: a 25-point drop everywhere is not worse by more than 30.
    const everywhere = compareRecords(
      run(seven, 10, () => 3),
      run(seven, 10, () => 2),
    );
    assert.equal(applyGate(everywhere, { threshold: 1 }).failed, true);
    assert.equal(applyGate(everywhere, { threshold: 30 }).failed, false);
    // Three trajectories, all a grade worse: 1/8 could never be significant, so nothing is tested: Overall fails the gate as untestable.
    const few = applyGate(
      compareRecords(
        run(['web'], 3, () => 4),
        run(['web'], 3, () => 3),
      ),
      { threshold: 0 },
    );
    assert.equal(few.failed, true);
    assert.equal(few.outcome, 'untestable');
    assert.deepEqual(few.tests, []);
    assert.deepEqual(few.reasons, [{ code: 'untestable', domain: 'overall', trajectories: 3, needed: 6, tests: 2 }]);
    assert.deepEqual(few.inconclusive, [{ domain: 'web', trajectories: 3, needed: 6, tests: 2 }]);
    // With Overall testable (3 + 10 trajectories), the small domain alone is left out.
    const mixed = applyGate(
      compareRecords(
        [...run(['web'], 3, () => 4), ...run(['mcp'], 10, () => 3)],
        [...run(['web'], 3, () => 3), ...run(['mcp'], 10, () => 3)],
      ),
      { threshold: 0 },
    );
    assert.deepEqual(mixed.tests.map((t) => t.name).sort(), ['MCP', 'Overall']);
    assert.equal(mixed.failed, false);
    assert.deepEqual(
      mixed.inconclusive.map((u) => u.domain),
      ['web'],
    );
  });

  it('fails a partial or incomparable candidate unless allowed', () => {
    const ok = emptyComparison();
    const context = {
      incomplete: [{ code: 'incomplete' as const, cause: 'missing-rows' as const, rows: 3, emptyDomains: [] }],
      incomparable: [
        {
          kind: 'setting-differs' as const,
          setting: 'judge' as const,
          values: [
            { value: 'a', runs: ['x'] },
            { value: 'b', runs: ['y'] },
          ],
        },
      ],
    };
    const g = applyGate(ok, { threshold: 1 }, context);
    assert.equal(g.failed, true);
    // Runs not comparable come before an incomplete candidate, and decide the outcome (exit 4).
    assert.deepEqual(
      g.reasons.map((r) => r.code),
      ['incomparable', 'incomplete'],
    );
    assert.equal(g.outcome, 'incomparable');
    assert.equal(applyGate(ok, { threshold: 1, allowIncomparable: true }, context).outcome, 'incomplete');
    assert.equal(applyGate(ok, { threshold: 1, allowPartial: true, allowIncomparable: true }, context).failed, false);
  });
});
