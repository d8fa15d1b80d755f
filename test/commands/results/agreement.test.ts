import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runAwb } from '../../support/cli.js';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = tempDir('awb-agreement-cli-');

const awb = (...args: string[]) => runAwb(args);

const same = (g: number) => [g, g, g, g, g];
/* Grades spread evenly over 1-4 in two domains; the second judge gives one more on every row. */
const GRADES = [1, 2, 3, 4, 1, 2, 3, 4];
const rows = (shift: number, extra: Array<Record<string, unknown>> = []) => [
  ...GRADES.map((g, i) => judgedRow({ domain: 'mcp', id: i + 1, dims: same(g + shift) })),
  ...GRADES.map((g, i) => judgedRow({ domain: 'search', id: i + 1, dims: same(g + shift) })),
  ...extra,
];
const gpt = writeJudged(dir, 'gpt.jsonl', rows(0, [judgedRow({ domain: 'mcp', id: 99, dims: same(0), failed: 1 })]));
const claude = writeJudged(dir, 'claude.jsonl', rows(1, [judgedRow({ domain: 'mcp', id: 99, dims: same(3) })]));
writeManifest(gpt, judgedManifest({ model: 'wm', judge: 'gpt-judge' }));
writeManifest(claude, judgedManifest({ model: 'wm', judge: 'claude-judge' }));

describe('awb agreement (end to end)', () => {
  before(() => assert.ok(existsSync(join(root, 'dist/commands/results/agreement.js')), 'run `npm run build` first'));

  it('a table per pair: an offset judge gives kappa 0.714 and a mean difference of 25 points; judges named by their manifests', async () => {
    const r = await awb('agreement', gpt, claude);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /^A = gpt-judge, B = claude-judge: totals by domain$/m);
    // The failed row of mcp id 99 is matched, counted and left out.
    assert.match(r.stdout, /^MCP\s+9\s+1\/0\s+8\s+0\.0%\s+0\.714\s+0\.711\s+1\.000\s+-25\.00 \[-25\.00, -25\.00\]$/m);
    assert.match(r.stdout, /^All domains\s+17\s+1\/0\s+16\s+0\.0%\s+0\.714\s+\S+\s+1\.000\s+-25\.00/m);
    assert.match(r.stdout, /^Quality\s+16\s+0\.0%\s+0\.714/m);
  });

  it('json, csv and markdown carry the same figures', async () => {
    const j = await awb('agreement', gpt, claude, '-f', 'json', '--bootstrap', '50');
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.equal(doc.format, 'agentworldbench-agreement');
    const total = doc.pairs[0].domains.all.dimensions.total;
    assert.equal(total.mean_diff, -25);
    assert.ok(Math.abs(total.kappa - 5 / 7) < 1e-12);
    assert.deepEqual(total.ci, { lo: -25, hi: -25 });
    assert.equal(doc.pairs[0].domains.mcp.failed_a, 1);
    assert.equal(doc.panel, null);

    const c = await awb('agreement', gpt, claude, '-f', 'csv', '--no-ci');
    assert.equal(c.code, 0, c.stderr);
    const lines = c.stdout.trim().split('\n');
    assert.equal(
      lines[0],
      'judges,judge_a,judge_b,domain,dimension,matched,failed_a,failed_b,rows,exact,kappa,alpha,r,mean_diff,ci_lo,ci_hi',
    );
    assert.equal(lines.length, 1 + 3 * 6, 'mcp, search and all, six dimensions each');
    assert.match(c.stdout, /^pair,gpt-judge,claude-judge,all,total,17,1,0,16,0,0\.714285714285714\d*,[^,]+,1,-25,,$/m);

    const m = await awb('agreement', gpt, claude, '-f', 'md');
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /^### A = gpt-judge, B = claude-judge: totals by domain$/m);
    assert.match(m.stdout, /^\| Domain \| Matched \| Failed A\/B \| Rows \| Exact \| κw \| α \| r \| Mean A − B \|$/m);
  });

  it('three judges: every pair and alpha over all; LABEL=FILE names a judge', async () => {
    const r = await awb('agreement', `first=${gpt}`, claude, `again=${gpt}`, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^A = first, B = again: totals by domain$/m);
    assert.match(r.stdout, /^MCP\s+9\s+1\/1\s+8\s+100\.0%\s+1\.000\s+1\.000\s+1\.000\s+0\.00$/m);
    assert.match(r.stdout, /^Krippendorff's α \(ordinal\), all 3 judges$/m);
  });

  it('the android pair (two distinct rows with the same id and turn) is matched by content, not by order', async () => {
    const twin = (text: string, g: number) => ({
      ...judgedRow({ domain: 'android', id: 7, dims: same(g) }),
      prompt: [text],
      response: [`${text}: seen`],
    });
    const a = writeJudged(dir, 'android-a.jsonl', [twin('open settings', 5), twin('tap back', 2)]);
    const b = writeJudged(dir, 'android-b.jsonl', [twin('tap back', 2), twin('open settings', 5)]);
    const r = await awb('agreement', a, b, '-f', 'json', '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    const android = JSON.parse(r.stdout).pairs[0].domains.android;
    assert.equal(android.matched, 2);
    assert.equal(android.dimensions.total.exact, 1);
  });

  it('one file, or files with no row in common: one line naming the files, exit 2', async () => {
    const one = await awb('agreement', gpt);
    assert.equal(one.code, 2);
    assert.equal(
      one.stderr,
      `awb: agreement needs two judged files or more of the same predictions (got only ${gpt}); to score one file use \`node bin/awb.js score\`\n`,
    );
    const other = writeJudged(dir, 'other.jsonl', [judgedRow({ domain: 'mcp', id: 500 })]);
    const none = await awb('agreement', gpt, other);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^awb: \S+gpt\.jsonl and \S+other\.jsonl have no row in common/);
    assert.equal(none.stderr.split('\n').length, 2, 'one line');
    const empty = await awb('agreement', `=${gpt}`, claude);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /nothing before "="/);
  });
});

describe('awb agreement --by-model', () => {
  const model = (name: string, judge: string, grades: number[]) => {
    const path = writeJudged(
      dir,
      `${name}-${judge}.jsonl`,
      grades.map((g, i) => judgedRow({ domain: i % 2 ? 'search' : 'mcp', id: i + 1, dims: same(g) })),
    );
    writeManifest(path, judgedManifest({ model: name, judge }));
    return path;
  };
  // j1 ranks m1 > m2 > m3; j2 swaps m2 and m3.
  const files = [
    model('m1', 'j1', [5, 5, 4, 4, 5, 4]),
    model('m2', 'j1', [3, 4, 3, 3, 4, 3]),
    model('m3', 'j1', [2, 2, 1, 2, 2, 1]),
    model('m1', 'j2', [5, 4, 5, 4, 4, 5]),
    model('m2', 'j2', [2, 1, 2, 2, 1, 1]),
    model('m3', 'j2', [3, 3, 4, 3, 3, 3]),
  ];

  it("a leaderboard per judge, as awb score ranks them, Kendall's tau 1/3 and the swapped pair", async () => {
    const r = await awb('agreement', '--by-model', ...files, '--bootstrap', '200');
    assert.equal(r.code, 0, r.stderr);
    const score = await awb('score', files[0]!, '--no-ci');
    const overall = /^m1\s+\S+\s+\S+\s+(\d+\.\d\d)/m.exec(score.stdout)![1]!;
    assert.match(r.stdout, new RegExp(`^m1\\s+${overall.replace('.', '\\.')} #1\\s+\\S+ #1$`, 'm'));
    assert.match(r.stdout, /^j1 \/ j2\s+3\s+0\.333\s+\[/m);
    assert.match(r.stdout, /^m2 \/ m3\s+\+\d+\.\d\d swaps 0\.0%\s+-\d+\.\d\d swaps 0\.0%\s+100\.0%$/m);
  });

  it('json and csv', async () => {
    const j = await awb('agreement', '--by-model', ...files, '-f', 'json', '--no-ci');
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout);
    assert.deepEqual(
      doc.leaderboards.j2.map((x: { model: string; rank: number }) => [x.model, x.rank]),
      [
        ['m1', 1],
        ['m2', 3],
        ['m3', 2],
      ],
    );
    assert.ok(Math.abs(doc.kendall_tau[0].tau - 1 / 3) < 1e-12);
    const c = await awb('agreement', '--by-model', ...files, '-f', 'csv', '--no-ci');
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout.split('\n')[0], 'record,model,judge,score,rank,judge_b,model_b,models,tau,ci_lo,ci_hi,diff,swapped,disagree');
    assert.match(c.stdout, /^tau,,j1,,,j2,,3,0\.333/m);
  });

  it('a file whose manifest names no judge is named, with the label that fixes it; MODEL@JUDGE=FILE labels it', async () => {
    const bare = writeJudged(dir, 'bare.jsonl', [judgedRow({ domain: 'mcp', id: 1 })]);
    const r = await awb('agreement', '--by-model', ...files, bare);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `awb: ${bare}: its manifest names no world model; name it in the argument: MODEL@JUDGE=${bare}\n`);
    const labelled = await awb('agreement', '--by-model', ...files, `m4@j1=${bare}`, '--no-ci');
    assert.equal(labelled.code, 0, labelled.stderr);
    assert.match(labelled.stdout, /^m4\s+\d+\.\d\d #\d\s+n\/a$/m);
  });
});
