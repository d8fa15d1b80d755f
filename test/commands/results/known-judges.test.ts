import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mulberry32 } from '../../../src/core/score/bootstrap.js';
import { runAwb } from '../../support/cli.js';
import { rowMarker, synthRows, tempDirs, type SynthRow } from '../../support/dataset.js';
import { lastUserText, type ReplyFn } from '../../support/openai-server.js';
import { judgeArgs, useServers } from '../../support/harness.js';

/*
 * The judge's share of a score, end to end: `awb judge` against local judges
 * of known behaviour, then `awb agreement` and `awb score` on what they wrote.
 * 48 rows, 24 per domain; each row has a reference grade spread evenly over
 * 1-4 within its domain, a quality of 2 or 3 and a prediction 2^k times as long
 * as the truth (k from -1 to 2), drawn independently of each other.
 */

const dirs = tempDirs('known-judges');
const serve = useServers();
after(() => dirs.cleanup());

const TRUTH = 'o'.repeat(40);
const rng = mulberry32(5);
const rows = synthRows(48, ['mcp', 'search']).map((r) => ({ ...r, response: r.response.map(() => TRUTH) }));
const seen = new Map<string, number>();
const known = new Map<string, { grade: number; quality: number; k: number }>(
  rows.map((r) => {
    const i = seen.get(r.task) ?? 0;
    seen.set(r.task, i + 1);
    return [rowMarker(r), { grade: 1 + (i % 4), quality: 2 + Math.floor(rng() * 2), k: Math.floor(rng() * 4) - 1 }];
  }),
);

/** The row a judge request is about: the marker of its latest turn (earlier turns' markers are in its history). */
function rowOf(text: string) {
  const markers = [...text.matchAll(/\[row [a-z]+\/\d+\/(\d+)\]/g)].sort((a, b) => Number(b[1]) - Number(a[1]));
  return known.get(markers[0]![0])!;
}

/** The two fenced observations of a rubric request, as the judge is shown them. */
function observations(text: string): { simulated: string; real: string } {
  const fence = (part: string) => /```+\n([\s\S]*?)\n```+/.exec(part)![1]!;
  const [, sim, real] = text.split(/# Simulated observation|# Real observation/);
  return { simulated: fence(sim!), real: fence(real!) };
}

/** Each model grades every dimension of a row alike. */
const JUDGES: Record<string, (text: string) => number> = {
  ref: (t) => rowOf(t).grade,
  twin: (t) => rowOf(t).grade,
  plus1: (t) => rowOf(t).grade + 1,
  five: () => 5,
  fair: (t) => rowOf(t).quality,
  // One grade more per doubling of the prediction's length over the truth's, read from what it is shown.
  long: (t) => {
    const { simulated, real } = observations(t);
    return rowOf(t).quality + Math.round(Math.log2(simulated.length / real.length));
  },
};
const reply: ReplyFn = (req) => {
  const g = JUDGES[req.model]!(lastUserText(req));
  const scores = { format: g, factuality: g, consistency: g, realism: g, quality: g };
  return `<final_evaluation>${JSON.stringify({ scores, strengths: [], weaknesses: [] })}</final_evaluation>`;
};

let dir: string;
let url: string;
const judged = (name: string) => join(dir, `${name}.jsonl`);

async function judge(models: string, out: string, extra: string[] = []): Promise<void> {
  const r = await runAwb(judgeArgs(url, join(dir, 'predictions.jsonl'), out, extra, models));
  assert.equal(r.code, 0, r.stderr);
}

async function awbJson(args: string[]) {
  const r = await runAwb([...args, '-f', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  dir = await dirs.make();
  const prediction = (r: SynthRow) => 'p'.repeat(TRUTH.length * 2 ** known.get(rowMarker(r))!.k);
  const lines = rows.map((r) => JSON.stringify({ ...r, gen: `<predicted_observation>${prediction(r)}</predicted_observation>` }));
  await writeFile(join(dir, 'predictions.jsonl'), lines.map((l) => `${l}\n`).join(''));
  url = (await serve({ models: Object.keys(JUDGES), reply })).url;
  for (const name of Object.keys(JUDGES)) await judge(name, judged(name));
});

interface Figures {
  rows: number;
  exact: number;
  kappa: number;
  alpha: number;
  mean_diff: number;
  ci: { lo: number; hi: number } | null;
}
const totals = (doc: { pairs: Array<{ domains: Record<string, { dimensions: { total: Figures } }> }> }, domain: string) =>
  doc.pairs[0]!.domains[domain]!.dimensions.total;
const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a}, expected ${b}`);

describe('awb agreement of local judges of known behaviour', () => {
  it('two identical judges: exact agreement, kappa and alpha 1, no mean difference', async () => {
    const doc = await awbJson(['agreement', judged('ref'), judged('twin'), '--bootstrap', '200']);
    for (const domain of ['mcp', 'search', 'all']) {
      const t = totals(doc, domain);
      assert.deepEqual([t.exact, t.kappa, t.alpha, t.mean_diff], [1, 1, 1, 0], domain);
    }
    assert.equal(totals(doc, 'all').rows, 48);
  });

  it('a judge one grade higher: kappa 5/7 as documented, exact 0, a mean difference of 25 points', async () => {
    const doc = await awbJson(['agreement', judged('ref'), judged('plus1'), '--bootstrap', '200']);
    for (const domain of ['mcp', 'search', 'all']) {
      const t = totals(doc, domain);
      close(t.kappa, 5 / 7, `${domain} kappa`);
      // Alpha's small-sample correction moves it with the number of rows: 0.698 on 24, 0.695 on 48 (documented: 0.69-0.71).
      assert.ok(t.alpha > 0.69 && t.alpha < 0.711, `${domain} alpha ${t.alpha}`);
      assert.equal(t.exact, 0);
      assert.equal(t.mean_diff, -25, `${domain}: A − B`);
      assert.deepEqual(t.ci, { lo: -25, hi: -25 });
    }
  });

  it('an always-5 judge against a varied one: kappa 0 and alpha at most 0', async () => {
    const doc = await awbJson(['agreement', judged('ref'), judged('five'), '--no-ci']);
    for (const domain of ['mcp', 'search', 'all']) {
      const t = totals(doc, domain);
      close(t.kappa, 0, `${domain} kappa`);
      assert.ok(t.alpha <= 0, `${domain} alpha ${t.alpha}`);
    }
  });
});

interface LengthJson {
  domains: Record<string, { slope_per_doubling: number; slope_ci95: [number, number]; lc_score: number; lc_ci95: [number, number]; length_bias: boolean; mean: number }>;
  overall: { lc_score: number; lc_ci95: [number, number]; mean: number };
}

describe('awb score --bias of a length-biased judge', () => {
  it('is flagged, and its LC score recovers the unbiased judge of the same predictions within its interval', async () => {
    const doc = await awbJson(['score', judged('long'), judged('fair'), '--bias', '--bootstrap', '1000']);
    const [long, fair] = (doc.bias as Array<{ length: LengthJson }>).map((b) => b.length) as [LengthJson, LengthJson];
    for (const d of ['mcp', 'search']) {
      const b = long.domains[d]!;
      const f = fair.domains[d]!;
      assert.equal(b.length_bias, true, `${d}: slope ${b.slope_per_doubling} [${b.slope_ci95.join(', ')}]`);
      assert.ok(b.slope_ci95[0] <= 25 && 25 <= b.slope_ci95[1], `${d}: 25 per doubling in [${b.slope_ci95.join(', ')}]`);
      assert.equal(f.length_bias, false, `${d}: the fair judge's slope [${f.slope_ci95.join(', ')}]`);
      assert.ok(b.lc_ci95[0] <= f.mean && f.mean <= b.lc_ci95[1], `${d}: ${f.mean} in [${b.lc_ci95.join(', ')}]`);
    }
    const o = long.overall;
    // The predictions are mostly longer than the truth: the raw macro mean is inflated, the LC score is not.
    assert.ok(o.mean > o.lc_score + 5, `macro: raw ${o.mean}, LC ${o.lc_score}`);
    assert.ok(o.lc_ci95[0] <= fair.overall.mean && fair.overall.mean <= o.lc_ci95[1], `macro: ${fair.overall.mean} in [${o.lc_ci95.join(', ')}]`);
  });
});

describe('a panel of three local judges', () => {
  const domainScores = (run: { domains: Record<string, { score: number }> }) => ['mcp', 'search'].map((d) => run.domains[d]!.score);

  it('gives the mean of its members, and with --panel median the middle one', async () => {
    await judge('ref,plus1,five', judged('panel-mean'));
    await judge('ref,plus1,five', judged('panel-median'), ['--panel', 'median']);
    const members = await Promise.all(['ref', 'plus1', 'five'].map(async (m) => domainScores((await awbJson(['score', judged(m), '--no-ci'])).runs[0])));
    const [mean, median] = await Promise.all(
      ['panel-mean', 'panel-median'].map(async (p) => domainScores((await awbJson(['score', judged(p), '--no-ci'])).runs[0])),
    );
    for (const i of [0, 1]) close(mean![i]!, members.reduce((s, m) => s + m[i]!, 0) / 3, `domain ${i}: the members' mean`);
    // Median of g, g + 1 and 5 over grades 1-4: always plus1's grade.
    assert.deepEqual(median, members[1]);
  });
});
