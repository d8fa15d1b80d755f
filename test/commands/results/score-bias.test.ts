import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';
import { runAwb } from '../../support/cli.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = tempDir('awb-score-bias-');

/*
 * 24 one-turn trajectories per domain; the prediction is 2^k times as long
 * as the truth (k = -1, 0, 1, 2, by id). The biased judge grades 2 + k
 * (totals 0, 25, 50, 75: 25 points per doubling, 25 at the truth's length);
 * the fair one grades by another cycle, independent of k.
 */
function rows(grade: (id: number, k: number) => number) {
  return ['mcp', 'search'].flatMap((domain) =>
    Array.from({ length: 24 }, (_, id) => {
      const k = (id % 4) - 1;
      const g = grade(id, k);
      return { ...judgedRow({ domain, id, dims: [g, g, g, g, g] }), response: ['t'.repeat(100)], gen: 'p'.repeat(100 * 2 ** k) };
    }),
  );
}
const biased = writeJudged(
  dir,
  'biased.jsonl',
  rows((_, k) => 2 + k),
);
writeManifest(biased, { ...judgedManifest({ model: 'Qwen/Qwen3-8B', judge: 'qwen3-235b-a22b' }), label: 'biased\u001b[31m' });
const fair = writeJudged(
  dir,
  'fair.jsonl',
  rows((id) => 1 + (Math.floor(id / 4) % 4)),
);
writeManifest(fair, judgedManifest({ model: 'Qwen/Qwen3-8B', judge: 'gpt-4.1' }));

interface BiasJson {
  label: string;
  self_preference: boolean;
  judge_family: string | null;
  length: {
    domains: Record<
      string,
      { slope_per_doubling: number; slope_ci95: [number, number]; lc_score: number; length_bias: boolean; mean: number }
    >;
    overall: { lc_score: number; lc_ci95: [number, number]; mean: number };
  };
}

describe('awb score --bias', () => {
  before(() => assert.ok(existsSync(join(root, 'dist/core/bias/bias.js')), 'run `npm run build` first'));

  it('json: the length-biased judge is flagged with its slope and LC score, the fair one is not; self-preference from the manifests', async () => {
    const r = await runAwb(['score', biased, fair, '--bias', '--format', 'json', '--bootstrap', '300']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { runs: unknown[]; bias: BiasJson[] };
    assert.equal(doc.runs.length, 2);
    const [b, f] = doc.bias as [BiasJson, BiasJson];
    assert.equal(b.self_preference, true);
    assert.equal(b.judge_family, 'qwen');
    assert.equal(f.self_preference, false);
    assert.equal(f.judge_family, 'openai');
    for (const d of ['mcp', 'search']) {
      const x = b.length.domains[d]!;
      assert.ok(Math.abs(x.slope_per_doubling - 25) < 1e-9, `${d}: ${x.slope_per_doubling}`);
      assert.ok(Math.abs(x.lc_score - 25) < 1e-9 && x.mean === 37.5);
      assert.equal(x.length_bias, true);
      const y = f.length.domains[d]!;
      assert.equal(y.length_bias, false);
      assert.ok(y.slope_ci95[0] < 0 && y.slope_ci95[1] > 0, `${d}: ${y.slope_ci95.join(', ')}`);
    }
    assert.ok(Math.abs(b.length.overall.lc_score - 25) < 1e-9);
    assert.doesNotMatch(r.stdout, /\x1b/, 'control characters escaped');
    assert.equal(b.label, 'biased\u001b[31m');
  });

  it('table, markdown and csv carry the checks; without --bias the output is what it was', async () => {
    const table = await runAwb(['score', biased, fair, '--bias', '--no-ci']);
    assert.equal(table.code, 0, table.stderr);
    assert.doesNotMatch(table.stdout, /\x1b/);
    assert.match(table.stdout, /self-preference risk: the judge is of the world model's family \(qwen\)/);
    assert.match(table.stdout, /^MCP\s+24\s+1\.41x\s+37\.50\s+\+25\.00\s+25\.00\s*$/m, 'no flag without intervals');
    const withCi = await runAwb(['score', biased, '--bias', '--bootstrap', '200']);
    assert.match(
      withCi.stdout,
      /^MCP\s+24\s+1\.41x\s+37\.50\s+\+25\.00 \[\+25\.00, \+25\.00\]\s+25\.00 \[25\.00, 25\.00\]\s+length bias$/m,
    );
    assert.match(withCi.stdout, /length bias: totals move with the prediction's relative length in MCP \(\+25\.00 per doubling\), Search/);

    const md = await runAwb(['score', biased, '--bias', '--no-ci', '--format', 'markdown']);
    assert.match(md.stdout, /^### biased\\\\x1b\\\[31m: length bias/m);
    assert.match(md.stdout, /^\| Overall \\\(macro\\\) \| 48 \| {2}\| 37\.50 \| {2}\| 25\.00 \| {2}\|$/m);

    const csv = await runAwb(['score', fair, '--bias', '--no-ci', '--format', 'csv']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /^run,judge_family,model_family,self_preference,domain,rows,median_length_ratio,mean,slope_per_doubling,/m);
    assert.match(csv.stdout, /^Qwen\/Qwen3-8B,openai,qwen,false,mcp,24,1\.41/m);

    const plain = await runAwb(['score', biased, fair, '--no-ci']);
    const plainJson = await runAwb(['score', biased, '--no-ci', '--format', 'json']);
    assert.doesNotMatch(plain.stdout, /length bias|LC score|self-preference/);
    assert.equal(table.stdout.startsWith(plain.stdout.trimEnd()), true, 'the leaderboard unchanged, the checks after it');
    assert.equal((JSON.parse(plainJson.stdout) as { bias?: unknown }).bias, undefined);
  });
});
