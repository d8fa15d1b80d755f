import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../src/commands/compare.js';
import { applyGate, compareFiles, compareRecords, type CompareResult } from '../src/core/score/compare.js';
import { readJudged } from '../src/core/score/judged-reader.js';
import { judgedRow, tempDir, writeJudged } from './fixtures/judged/rows.js';

const dir = tempDir('awb-compare-');
const settings = { resamples: 500, seed: 11 };

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

/** Runs the command as the CLI would, returning stdout and the exit code it set. */
async function runCompare(baseline: string, candidate: string, extra: Partial<Parameters<typeof run>[2]> = {}) {
  const write = process.stdout.write;
  const saved = process.exitCode;
  let out = '';
  process.exitCode = undefined;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await run(baseline, candidate, { format: 'table', bootstrap: '500', seed: '11', ...extra });
    return { out, exitCode: process.exitCode };
  } finally {
    process.stdout.write = write;
    process.exitCode = saved;
  }
}

describe('compare', () => {
  it('detects a known drop, applying each draw to both sides (gate exits 1)', async () => {
    // Every row loses exactly one grade: -25 points on every row, so every paired resample is -25.
    // Resampling the two sides independently would spread the interval far wider.
    const worse = writeJudged(
      dir,
      'worse.jsonl',
      rows((d, id, t) => base(d, id, t) - 1),
    );
    const result = compareRecords(await load(baselineFile), await load(worse), settings);
    for (const d of [...result.domains, result.overall]) {
      assert.equal(d.delta!.toNumber(), -25);
      assert.deepEqual(d.ci, { lo: -25, hi: -25 });
    }
    assert.equal(applyGate(result, 1).failed, true);
    assert.equal(applyGate(result, 30).failed, false);

    const summary = join(dir, 'summary.md');
    const { out, exitCode } = await runCompare(baselineFile, worse, { failBelow: '1', summary });
    assert.equal(exitCode, 1);
    assert.match(out, /Gate FAILED/);
    assert.match(out, /Overall: -25\.00 points/);
    const md = readFileSync(summary, 'utf8');
    assert.match(md, /^## awb compare/m);
    assert.match(md, /\| Overall \(macro\) \|/);
    assert.match(md, /Gate FAILED/);
  });

  it('does not flag a zero-mean difference (exit 0)', async () => {
    // Odd trajectories gain a grade, even ones lose one (grades stay within 1..5): the mean delta
    // is exactly 0 and the interval straddles it.
    const noisy = writeJudged(
      dir,
      'noisy.jsonl',
      rows((d, id, t) => base(d, id, t) + (id % 2 ? 1 : -1)),
    );
    const result = compareRecords(await load(baselineFile), await load(noisy), settings);
    assert.equal(result.overall.delta!.toNumber(), 0);
    assert.ok(result.overall.ci!.lo < 0 && result.overall.ci!.hi > 0);
    assert.equal(applyGate(result, 0).failed, false);
    const { out, exitCode } = await runCompare(baselineFile, noisy, { failBelow: '0' });
    assert.equal(exitCode, undefined);
    assert.match(out, /Gate passed/);
    assert.match(out, /no clear difference/);

    const same = await runCompare(baselineFile, baselineFile, { failBelow: '0.5' });
    assert.equal(same.exitCode, undefined);
    const report = await compareFiles(baselineFile, join(dir, '.', 'baseline.jsonl'), { bootstrap: settings, failBelow: 0.5 });
    assert.match(report.warnings.join('\n'), /are the same file: every difference is 0, so the gate cannot fail/);
    assert.deepEqual((await compareFiles(baselineFile, noisy, { bootstrap: settings, failBelow: 0.5 })).warnings, []);
  });

  it('reports rows present on one side only, with examples', async () => {
    const all = rows(base);
    const dropped = all.filter((r) => !(r.task === 'agentworld/mcp' && (r.id === 4 || (r.id === 3 && r.turn_idx === 1))));
    const extra = judgedRow({ domain: 'mcp', id: 99, turn: 1 });
    const partial = writeJudged(dir, 'partial.jsonl', [...dropped, extra]);
    const result = compareRecords(await load(baselineFile), await load(partial), settings);
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

  it('measures deltas on rows valid on both sides', async () => {
    const cand = rows(base).map((r) =>
      r.task === 'agentworld/os' && r.id === 1 ? judgedRow({ domain: 'os', id: 1, turn: r.turn_idx as number, bare: true }) : r,
    );
    const result = compareRecords(await load(baselineFile), await load(writeJudged(dir, 'failing.jsonl', cand)), settings);
    const os = result.domains.find((d) => d.domain === 'os')!;
    assert.deepEqual([os.paired, os.used, os.baselineFailed, os.candidateFailed], [24, 22, 0, 2]);
    assert.equal(os.delta!.toNumber(), 0);
  });

  it('gates strictly on the upper bound being below -DELTA', () => {
    const result = (hi: number): CompareResult => ({
      onlyBaseline: { count: 0, examples: [] },
      onlyCandidate: { count: 0, examples: [] },
      domains: [],
      overall: {
        baseline: undefined,
        candidate: undefined,
        delta: undefined,
        ci: { lo: -5, hi },
        domains: 1,
        paired: 0,
        used: 0,
        baselineFailed: 0,
        candidateFailed: 0,
      },
    });
    assert.equal(applyGate(result(-1), 1).failed, false, 'an upper bound at exactly -DELTA does not fail');
    assert.equal(applyGate(result(-1.01), 1).failed, true);
    assert.equal(applyGate(result(0.2), 0).failed, false);
  });
});
