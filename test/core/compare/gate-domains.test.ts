/*
 * compare --domains in core: only the domains asked for are compared and
 * gated (Overall their macro, Holm's m their count plus one); a domain asked
 * for that is too small to test, or has no delta, fails the gate as
 * untestable; one neither run has is a fault naming it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyGate, compareFiles, compareRecords, GATE_ALPHA } from '../../../src/core/compare/index.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { isFault } from '../../support/fault-kind.js';

const dir = tempDir('awb-compare-domains-');

/** Trajectories per domain, one row each; every grade `grade(domain, id)`. */
const SIZES: Record<string, number> = { mcp: 12, search: 12, os: 4 };
const run = (name: string, grade: (domain: string, id: number) => number, sizes = SIZES) =>
  writeJudged(
    dir,
    name,
    Object.entries(sizes).flatMap(([domain, n]) =>
      Array.from({ length: n }, (_, i) => judgedRow({ domain, id: i + 1, dims: Array(5).fill(grade(domain, i + 1)) })),
    ),
  );

// Search loses a grade on every row (-25 points); MCP and OS keep theirs.
const baseline = run('base.jsonl', () => 4);
const candidate = run('cand.jsonl', (d) => (d === 'search' ? 3 : 4));

describe('compare --domains (core)', () => {
  it('compares only the domains asked for: their lines, their macro, their rows', async () => {
    const all = await compareFiles(baseline, candidate, { gate: undefined });
    const some = await compareFiles(baseline, candidate, { gate: undefined, domains: ['search', 'os'] });
    assert.deepEqual(
      some.result.domains.map((d) => d.domain),
      ['search', 'os'],
    );
    assert.equal(some.domains?.join(), 'search,os');
    assert.equal(all.result.overall.delta!.toNumber(), -25 / 3);
    assert.equal(some.result.overall.delta!.toNumber(), -25 / 2);
    assert.equal(some.result.overall.domains, 2);
    assert.equal(some.result.overall.paired, 16);
    assert.equal(some.baseline.rows, 16);
    assert.equal(some.candidate.rows, 16);
    // The same figures as comparing the rows of those domains alone.
    const only = async (file: string) => (await readJudged(file)).records.filter((r) => r.domain !== 'mcp');
    const direct = compareRecords(await only(baseline), await only(candidate));
    assert.deepEqual(some.result.overall.delta, direct.overall.delta);
    assert.deepEqual(some.result.overall.ci, direct.overall.ci);
  });

  it("Holm's m counts Overall and the domains asked for only", async () => {
    const gate = { threshold: 1 };
    const all = (await compareFiles(baseline, candidate, { gate })).gate!;
    const two = (await compareFiles(baseline, candidate, { gate, domains: ['mcp', 'search'] })).gate!;
    assert.equal(all.tests.length, 3); // Overall, MCP, Search; OS too small
    assert.equal(all.inconclusive[0]?.tests, 4);
    assert.deepEqual(two.domains, ['mcp', 'search']);
    assert.deepEqual(two.tests.map((t) => t.domain).sort(), ['mcp', 'overall', 'search']);
    assert.equal(two.tests[0]!.level, GATE_ALPHA / 3);
    assert.deepEqual(two.inconclusive, []);
    const search = two.reasons.find((r) => r.code === 'regression' && r.domain === 'search');
    assert.ok(search && search.code === 'regression' && search.tests === 3);
    assert.equal(two.outcome, 'regression');
  });

  it('a domain asked for that is too small to test fails the gate as untestable; unasked, it is only said', async () => {
    const gate = { threshold: 1 };
    const unasked = (await compareFiles(baseline, baseline, { gate })).gate!;
    assert.equal(unasked.outcome, 'passed');
    assert.deepEqual(
      unasked.inconclusive.map((u) => u.domain),
      ['os'],
    );
    const asked = (await compareFiles(baseline, baseline, { gate, domains: ['mcp', 'os'] })).gate!;
    assert.equal(asked.failed, true);
    assert.equal(asked.outcome, 'untestable');
    assert.deepEqual(asked.inconclusive, []);
    assert.deepEqual(asked.reasons, [{ code: 'untestable', domain: 'os', trajectories: 4, needed: 6, tests: 3 }]);
    // MCP and Overall are still tested.
    assert.deepEqual(asked.tests.map((t) => t.domain).sort(), ['mcp', 'overall']);
  });

  it('a domain asked for that only the baseline has: incomplete first, then untestable with no trajectory', async () => {
    const noOs = run('cand-no-os.jsonl', () => 4, { mcp: 12, search: 12 });
    const opts = { domains: ['mcp', 'os'] };
    const g = (await compareFiles(baseline, noOs, { ...opts, gate: { threshold: 1 } })).gate!;
    assert.equal(g.outcome, 'incomplete');
    assert.deepEqual(
      g.reasons.map((r) => [r.code, 'domain' in r ? r.domain : undefined]),
      [
        ['incomplete', undefined],
        ['untestable', 'os'],
      ],
    );
    const missing = g.reasons[0]!;
    assert.ok(missing.code === 'incomplete' && missing.cause === 'missing-rows');
    assert.equal(missing.rows, 4);
    assert.deepEqual(missing.emptyDomains, ['os']);
    const partial = (await compareFiles(baseline, noOs, { ...opts, gate: { threshold: 1, allowPartial: true } })).gate!;
    assert.equal(partial.outcome, 'untestable');
    assert.deepEqual(partial.reasons, [{ code: 'untestable', domain: 'os', trajectories: 0, needed: 6, tests: 2 }]);
  });

  it('a domain neither run has is a fault naming it, and the domains they have', async () => {
    await assert.rejects(
      compareFiles(baseline, candidate, { gate: { threshold: 1 }, domains: ['mcp', 'web', 'termnal'] }),
      isFault('domains-in-neither-run', { domains: ['web', 'termnal'], has: ['mcp', 'search', 'os'] }),
    );
  });

  it('without domains asked for, the gate is as before: a domain without a delta is no reason', async () => {
    const result = compareRecords((await readJudged(baseline)).records, (await readJudged(baseline)).records);
    const os = result.domains.find((d) => d.domain === 'os')!;
    const emptied = { ...result, domains: result.domains.map((d) => (d === os ? { ...d, delta: undefined } : d)) };
    assert.equal(applyGate(emptied, { threshold: 1 }).failed, false);
    assert.deepEqual(
      applyGate(emptied, { threshold: 1, domains: ['os'] }).reasons.map((r) => r.code),
      ['untestable'],
    );
  });
});
