/*
 * The gate's exit codes and its JSON reasons, from the CLI: 4 a regression,
 * 5 an incomplete candidate (rows missing, no generation, no readable
 * judgement), 6 a run too small to test; 0 only when something was tested.
 * A candidate completed with --retry-failed passes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';

const temps = tempDirs('gate-codes');
after(() => temps.cleanup());
const server = useServers();
const dir = tempDir();

/** One row per trajectory, `n` trajectories of MCP, every grade `grade`. */
const run = (name: string, n: number, grade: (id: number) => number) =>
  writeJudged(
    dir,
    name,
    Array.from({ length: n }, (_, i) => judgedRow({ id: i + 1, dims: Array(5).fill(grade(i + 1)) })),
  );

async function gate(baseline: string, candidate: string, extra: string[] = []) {
  const r = await runAwb(['compare', baseline, candidate, '--fail-below', '1', '--format', 'json', ...extra]);
  return { code: r.code, stderr: r.stderr, gate: r.stdout ? JSON.parse(r.stdout).gate : undefined };
}

describe('the gate on judged files', () => {
  it('a regression: exit 4, a typed reason with its message', async () => {
    const base = run('reg-base.jsonl', 12, () => 4);
    const cand = run('reg-cand.jsonl', 12, () => 3);
    const r = await gate(base, cand);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.gate.outcome, 'regression');
    const overall = r.gate.reasons.find((x: { domain: string }) => x.domain === 'overall');
    assert.equal(overall.code, 'regression');
    assert.equal(overall.delta, -25);
    assert.equal(overall.threshold, 1);
    assert.match(overall.message, /^Overall: -25\.00 points, worse by more than 1\.00/);
  });

  it('a candidate every grade 1 on too few trajectories: exit 6 (untestable), never a pass; the smallest size that could show a drop is said', async () => {
    // 10 rows over 4 trajectories, 68.75 against 0.00: the case that once printed "Gate passed (0 tested)".
    const rows = (grade: number) =>
      Array.from({ length: 10 }, (_, i) => judgedRow({ id: 1 + (i % 4), turn: 1 + Math.floor(i / 4), dims: Array(5).fill(grade) }));
    const base = writeJudged(dir, 'few-base.jsonl', rows(4));
    const cand = writeJudged(dir, 'few-cand.jsonl', rows(1));
    const r = await gate(base, cand);
    assert.equal(r.code, 6, r.stderr);
    assert.equal(r.gate.outcome, 'untestable');
    assert.equal(r.gate.failed, true);
    assert.deepEqual(r.gate.tests, []);
    assert.deepEqual(
      r.gate.reasons.map((x: Record<string, unknown>) => [x.code, x.domain, x.trajectories, x.needed]),
      [['untestable', 'overall', 4, 6]],
    );
    assert.match(r.gate.reasons[0].message, /cannot show a drop of any size .*at least 6 trajectories/);
    // On a terminal the verdict says so too.
    const table = await runAwb(['compare', base, cand, '--fail-below', '1']);
    assert.equal(table.code, 6);
    assert.match(table.stdout, /Gate FAILED .*\n {2}Overall could not be tested: 4 trajectories/);
  });

  it('rows missing from the candidate: exit 5, and 0 with --allow-partial', async () => {
    const base = run('part-base.jsonl', 12, () => 4);
    const cand = writeJudged(
      dir,
      'part-cand.jsonl',
      Array.from({ length: 10 }, (_, i) => judgedRow({ id: i + 1 })),
    );
    const r = await gate(base, cand);
    assert.equal(r.code, 5, r.stderr);
    assert.deepEqual(r.gate.reasons[0], {
      code: 'incomplete',
      cause: 'missing-rows',
      rows: 2,
      emptyDomains: [],
      message:
        'incomplete candidate: 2 row(s) of the baseline are missing from part-cand.jsonl (--allow-partial to gate on the rows in common)',
    });
    assert.equal(r.gate.remedy, null);
    assert.equal((await gate(base, cand, ['--allow-partial'])).code, 0);
  });

  it('a regression outranks an incomplete candidate: exit 4, both reasons listed', async () => {
    const base = run('both-base.jsonl', 12, () => 4);
    const cand = writeJudged(
      dir,
      'both-cand.jsonl',
      Array.from({ length: 11 }, (_, i) => judgedRow({ id: i + 1, dims: Array(5).fill(2) })),
    );
    const r = await gate(base, cand);
    assert.equal(r.code, 4, r.stderr);
    assert.deepEqual([...new Set(r.gate.reasons.map((x: { code: string }) => x.code))], ['regression', 'incomplete']);
  });
});

describe('a pass with domains too small to test', () => {
  it('says what it tested by name and that the small domains are not covered, in the verdict itself', async () => {
    const rows = (grade: number) => [
      ...Array.from({ length: 12 }, (_, i) => judgedRow({ domain: 'mcp', id: i + 1, dims: Array(5).fill(grade) })),
      ...Array.from({ length: 3 }, (_, i) => judgedRow({ domain: 'web', id: i + 1, dims: Array(5).fill(grade) })),
    ];
    const base = writeJudged(dir, 'small-base.jsonl', rows(3));
    const cand = writeJudged(dir, 'small-cand.jsonl', rows(3));
    const r = await runAwb(['compare', base, cand, '--fail-below', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Gate passed \(--fail-below 1\.00\): no test finds the candidate worse by more than 1\.00 points; tested: Overall and one domain \(MCP\) \(family-wise error 5%\); NOT tested \(too few trajectories\), so not covered by this pass: Web\.$/m,
    );
    const json = await gate(base, cand);
    assert.deepEqual(
      json.gate.not_tested.map((u: { domain: string }) => u.domain),
      ['web'],
    );
  });
});

describe('a candidate whose judge requests failed with a 500', () => {
  it('fails as judge-failures of cause request-failed, worded as failed requests, not as replies that could not be read', async () => {
    const root = await temps.make();
    const data = await makeDataset(root, 24, ['terminal']);
    const world = await server({ reply: worldReply });
    const judge = await server({ reply: judgeReply });
    const failing = await server({ reply: judgeReply, faults: (_req, n) => (n % 3 === 0 ? '500' : undefined) });
    const predictions = join(root, 'p.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, data.dir, predictions))).code, 0);
    const baseline = join(root, 'base.jsonl');
    const candidate = join(root, 'cand.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, predictions, baseline))).code, 0);
    assert.equal((await runAwb(judgeArgs(failing.url, predictions, candidate, ['--max-retries', '0']))).code, 1);
    const r = await gate(baseline, candidate);
    assert.equal(r.code, 5, r.stderr);
    const reasons = r.gate.reasons.filter((x: { code: string }) => x.code === 'judge-failures');
    assert.ok(reasons.length > 0);
    for (const x of reasons) {
      assert.equal(x.cause, 'request-failed');
      assert.match(x.message, /have no grade \(their judge requests failed after every retry\)/);
      assert.doesNotMatch(x.message, /could not be read/);
    }
  });
});

describe('a candidate whose judge replies could not all be read', () => {
  it('fails as judge-failures (exit 5, naming judge --retry-failed); once asked again with --retry-failed it passes', async () => {
    const root = await temps.make();
    const data = await makeDataset(root, 24, ['terminal']);
    const world = await server({ reply: worldReply });
    // One judge endpoint whose replies go bad for a while: the same URL, so resuming its file is not refused for another host.
    let garbled = false;
    let asked = 0;
    const judge = await server({ reply: (req, ctx) => (garbled && asked++ % 3 === 0 ? 'no verdict here' : judgeReply(req, ctx)) });
    const predictions = join(root, 'p.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, data.dir, predictions))).code, 0);
    const baseline = join(root, 'base.jsonl');
    const candidate = join(root, 'cand.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, predictions, baseline))).code, 0);
    garbled = true;
    await runAwb(judgeArgs(judge.url, predictions, candidate, ['--parse-attempts', '1']));
    const failed = await gate(baseline, candidate);
    assert.equal(failed.code, 5, failed.stderr);
    assert.equal(failed.gate.outcome, 'incomplete');
    const codes = new Set(failed.gate.reasons.map((x: { code: string }) => x.code));
    assert.deepEqual([...codes], ['judge-failures']);
    assert.deepEqual([...new Set(failed.gate.reasons.map((x: { cause: string }) => x.cause))], ['unreadable']);
    assert.ok(failed.gate.reasons.every((x: { rows: number; paired: number }) => x.rows > 0 && x.rows < x.paired));
    assert.match(
      failed.gate.remedy,
      /^to complete .*cand\.jsonl\), ask its failed rows again: run the judge command .*judge \.\.\. --retry-failed/,
    );

    garbled = false;
    const retried = await runAwb(judgeArgs(judge.url, predictions, candidate, ['--parse-attempts', '1', '--retry-failed']));
    assert.equal(retried.code, 0, retried.stderr);
    const passed = await gate(baseline, candidate);
    assert.equal(passed.code, 0, passed.stderr);
    assert.equal(passed.gate.outcome, 'passed');
    assert.deepEqual(passed.gate.reasons, []);
  });
});
