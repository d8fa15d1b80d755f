import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../../../src/commands/results/compare.js';
import { COMPARE_OPTIONS } from '../../../src/commands/results/results-options.js';
import { parseOptions } from '../../../src/commands/shared/option-table.js';
import { applyGate, compareFiles, compareRecords } from '../../../src/core/compare/index.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { runAwb } from '../../support/cli.js';
import { isFault } from '../../support/fault-kind.js';
import { captured } from '../../support/terminal.js';
import { refusalLine } from '../../support/refusal.js';
import { gateRemedy, reasonText } from '../../../src/render/gate.js';
import { comparePage } from '../../support/compare-page.js';
import { NOTE_WORDS } from '../../../src/commands/words/index.js';

const dir = tempDir('awb-compare-');

/** 3 domains x 12 trajectories x 2 turns, grades 2..4 from `grade`. */
function rows(grade: (domain: string, id: number, turn: number) => number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const domain of ['mcp', 'search', 'os']) {
    for (let id = 1; id <= 12; id++) {
      for (let turn = 1; turn <= 2; turn++) {
        const g = grade(domain, id, turn);
        out.push(judgedRow({ domain, id, turn, dims: [g, g, g, g, g] }));
      }
    }
  }
  return out;
}

const base = (_d: string, id: number, turn: number) => 2 + ((id * 5 + turn) % 3);
const baselineFile = writeJudged(dir, 'baseline.jsonl', rows(base));

async function load(path: string) {
  return (await readJudged(path)).records;
}

/** Runs the command as the CLI would (options as commander collects them), returning stdout and the exit code it set. */
async function runCompare(baseline: string, candidate: string, extra: Record<string, string> = {}) {
  const r = await captured(() => run(baseline, candidate, parseOptions(COMPARE_OPTIONS, { format: 'table', ...extra })));
  return { out: r.stdout, exitCode: r.exitCode };
}

describe('compare', () => {
  it('detects a known drop from the paired differences (gate exits 4)', async () => {
    // Every row loses exactly one grade: -25 points on every row, so the paired differences have no spread.
    // Comparing the two sides' scores unpaired would spread the interval far wider.
    const worse = writeJudged(
      dir,
      'worse.jsonl',
      rows((d, id, t) => base(d, id, t) - 1),
    );
    const result = compareRecords(await load(baselineFile), await load(worse));
    for (const d of [...result.domains, result.overall]) {
      assert.equal(d.delta!.toNumber(), -25);
      assert.deepEqual(d.ci, { lo: -25, hi: -25 });
    }
    assert.equal(applyGate(result, { threshold: 1 }).failed, true);
    assert.equal(applyGate(result, { threshold: 30 }).failed, false);

    const summary = join(dir, 'summary.md');
    const { out, exitCode } = await runCompare(baselineFile, worse, { failBelow: '1', summary });
    assert.equal(exitCode, 4);
    assert.match(out, /Gate FAILED/);
    assert.match(out, /Overall: -25\.00 points/);
    const md = readFileSync(summary, 'utf8');
    assert.match(md, /^## awb compare/m);
    assert.match(md, /\| Overall \\\(macro\\\) \|/);
    assert.match(md, /Gate FAILED/);
    // The verdict leads the summary, before the tables.
    assert.ok(md.indexOf('Gate FAILED') < md.indexOf('| Overall \\(macro\\) |'));
    // Appended again to a markdown file, and never to a JSON one (a judged file named by mistake).
    await runCompare(baselineFile, worse, { failBelow: '1', summary });
    assert.equal(readFileSync(summary, 'utf8').split('## awb compare').length, 3);
    const judged = readFileSync(worse, 'utf8');
    await assert.rejects(
      runCompare(baselineFile, baselineFile, { summary: worse }),
      isFault('output-holds-json', { path: worse, use: 'summary' }),
    );
    assert.equal(readFileSync(worse, 'utf8'), judged);
  });

  it('does not flag a zero-mean difference (exit 0)', async () => {
    // Odd trajectories gain a grade, even ones lose one (grades stay within 1..5): the mean delta
    // is exactly 0 and the interval straddles it.
    const noisy = writeJudged(
      dir,
      'noisy.jsonl',
      rows((d, id, t) => base(d, id, t) + (id % 2 ? 1 : -1)),
    );
    const result = compareRecords(await load(baselineFile), await load(noisy));
    assert.equal(result.overall.delta!.toNumber(), 0);
    assert.ok(result.overall.ci!.lo < 0 && result.overall.ci!.hi > 0);
    assert.equal(applyGate(result, { threshold: 0 }).failed, false);
    const { out, exitCode } = await runCompare(baselineFile, noisy, { failBelow: '0' });
    assert.equal(exitCode, undefined);
    assert.match(out, /Gate passed/);
    assert.match(out, /no clear difference/);

    const same = await runCompare(baselineFile, baselineFile, { failBelow: '0.5' });
    assert.equal(same.exitCode, undefined);
    const again = join(dir, '.', 'baseline.jsonl');
    const report = await compareFiles(baselineFile, again, { gate: { threshold: 0.5 } });
    assert.deepEqual(report.warnings, [{ kind: 'compared-with-itself', baseline: baselineFile, candidate: again }]);
    assert.deepEqual((await compareFiles(baselineFile, noisy, { gate: { threshold: 0.5 } })).warnings, []);
  });

  it('reports rows present on one side only, with examples', async () => {
    const all = rows(base);
    const dropped = all.filter((r) => !(r.task === 'agentworld/mcp' && (r.id === 4 || (r.id === 3 && r.turn_idx === 1))));
    const extra = judgedRow({ domain: 'mcp', id: 99, turn: 1 });
    const partial = writeJudged(dir, 'partial.jsonl', [...dropped, extra]);
    const result = compareRecords(await load(baselineFile), await load(partial));
    assert.deepEqual(result.onlyBaseline, { count: 3, examples: ['mcp id 3 turn 1', 'mcp id 4 turn 1', 'mcp id 4 turn 2'] });
    assert.deepEqual(result.onlyCandidate, { count: 1, examples: ['mcp id 99 turn 1'] });
    const mcp = result.domains.find((d) => d.domain === 'mcp')!;
    assert.equal(mcp.paired, 24 - 3);
    const { out } = await runCompare(baselineFile, partial, { format: 'json' });
    const json = JSON.parse(out);
    assert.equal(json.only_in_baseline.count, 3);
    assert.match(json.notes.join('\n'), /3 row\(s\) only in baseline\.jsonl/);
    assert.match(json.notes.join('\n'), /1 row\(s\) only in partial\.jsonl\b.*mcp id 99 turn 1/);
  });

  it('an empty file, or a predictions file, is named as such rather than "no rows in common"', async () => {
    const empty = writeJudged(dir, 'empty.jsonl', []);
    const predictions = writeJudged(
      dir,
      'predictions.jsonl',
      rows(base).map((r) => ({ task: r.task, id: r.id, turn_idx: r.turn_idx, prompt: r.prompt, response: r.response, gen: r.gen })),
    );
    const opts = { gate: undefined };
    await assert.rejects(compareFiles(empty, baselineFile, opts), isFault('judged-file-empty', { file: empty }));
    await assert.rejects(
      compareFiles(baselineFile, predictions, opts),
      isFault('judged-file-of-earlier-stage', { file: predictions, stage: 'prediction' }),
    );
  });

  it('three files (several models) are refused in one line that says to use score or report, or to compare two at a time', async () => {
    const line = refusalLine(await runAwb(['compare', baselineFile, baselineFile, baselineFile]), 2);
    assert.match(line, /^awb: compare takes two judged files, a baseline and a candidate \(got 3\): .*awb score or awb report/);
  });

  it('a gate left with one test says "one test", not "1 tests"', async () => {
    // Three trajectories per domain: too few for a domain, so only Overall is tested.
    const few = (shift: number) =>
      ['mcp', 'search', 'os'].flatMap((domain) => [1, 2, 3].map((id) => judgedRow({ domain, id, dims: Array(5).fill(4 - shift) })));
    const result = compareRecords(
      await load(writeJudged(dir, 'few-base.jsonl', few(0))),
      await load(writeJudged(dir, 'few-cand.jsonl', few(1))),
    );
    const gate = applyGate(result, { threshold: 1 });
    assert.equal(gate.tests.length, 1);
    const overall = gate.reasons.filter((r) => r.code === 'regression' && r.domain === 'overall');
    assert.deepEqual(
      overall.map((r) => reasonText(r, comparePage('few-cand.jsonl'))),
      ['Overall: -25.00 points, worse by more than 1.00 (one-sided p = 0.0020, at most 5% by Holm over one test)'],
    );
  });

  it('measures deltas on rows valid on both sides', async () => {
    const cand = rows(base).map((r) =>
      r.task === 'agentworld/os' && r.id === 1 ? judgedRow({ domain: 'os', id: 1, turn: r.turn_idx as number, bare: true }) : r,
    );
    const result = compareRecords(await load(baselineFile), await load(writeJudged(dir, 'failing.jsonl', cand)));
    const os = result.domains.find((d) => d.domain === 'os')!;
    assert.deepEqual([os.paired, os.used, os.baselineFailed, os.candidateFailed], [24, 22, 0, 2]);
    assert.equal(os.delta!.toNumber(), 0);
  });

  it('fails a candidate with rows failed where the baseline has valid ones, naming each domain and the remedy, unless --allow-partial', async () => {
    // Ten OS rows (of 24) and one MCP row fail in the candidate; every other row is unchanged, so no test sees a drop.
    const failing = (domain: string, id: number) => (domain === 'os' && id <= 5) || (domain === 'mcp' && id === 7);
    const cand = rows(base).map((r) => {
      const domain = String(r.task).split('/')[1]!;
      const turn = r.turn_idx as number;
      return failing(domain, r.id as number) && (domain === 'os' || turn === 1)
        ? judgedRow({ domain, id: r.id as number, turn, bare: true })
        : r;
    });
    const file = writeJudged(dir, 'lost.jsonl', cand);
    const report = await compareFiles(baselineFile, file, { gate: { threshold: 1 } });
    assert.deepEqual(
      report.result.domains.map((d) => [d.domain, d.candidateLost]),
      [
        ['mcp', 1],
        ['search', 0],
        ['os', 10],
      ],
    );
    assert.equal(report.result.overall.delta!.toNumber(), 0);
    assert.ok(report.gate!.tests.every((t) => !t.rejected));
    assert.equal(report.gate!.failed, true);
    assert.equal(report.gate!.outcome, 'incomplete');
    assert.deepEqual(report.gate!.reasons, [
      { code: 'incomplete', cause: 'no-generation', domain: 'mcp', rows: 1, paired: 24 },
      { code: 'incomplete', cause: 'no-generation', domain: 'os', rows: 10, paired: 24 },
    ]);
    const shown = { ...report, invocation: 'node bin/awb.js', words: NOTE_WORDS };
    assert.equal(
      reasonText(report.gate!.reasons[1]!, shown),
      "incomplete candidate: OS: 10 of 24 candidate rows have no generation (their inference failed) where the baseline's are valid (--allow-partial to gate on the rows in common)",
    );
    assert.equal(
      gateRemedy(report.gate!, shown),
      'to complete lost.jsonl, ask its failed rows again: run the commands that made it once more with --retry-failed added (`node bin/awb.js infer ... --retry-failed` for rows without a generation, then `node bin/awb.js judge ... --retry-failed`); or gate on the rows in common with --allow-partial',
    );
    // Allowed: judged on the rows in common, as before, saying how many were left out.
    const allowed = await compareFiles(baselineFile, file, { gate: { threshold: 1, allowPartial: true } });
    assert.equal(allowed.gate!.failed, false);
    assert.deepEqual(allowed.gate!.reasons, []);
    assert.deepEqual(
      allowed.notes.filter((n) => n.kind === 'paired-rows-failed'),
      [
        {
          kind: 'paired-rows-failed',
          baseline: { run: 'baseline.jsonl', failed: 0 },
          candidate: { run: 'lost.jsonl', failed: 11 },
          used: 61,
          paired: 72,
        },
      ],
    );
    // Rows failed on both sides take nothing from the candidate: the baseline has no valid row there either.
    const both = writeJudged(dir, 'both-failed-base.jsonl', cand);
    assert.equal((await compareFiles(both, file, { gate: { threshold: 1 } })).gate!.failed, false);
  });

});
