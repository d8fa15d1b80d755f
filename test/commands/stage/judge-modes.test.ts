import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startOpenAIServer, type FakeServer, type ReplyFn } from '../../support/openai-server.js';
import { asks, judges, realAt } from '../../support/choice-judges.js';
import { runAwb, startAwb } from '../../support/cli.js';
import { rowMarker, synthRows, tempDirs, waitForLines, type SynthRow } from '../../support/dataset.js';
import { sampleSd } from '../../../src/core/score/index.js';
import { noticed } from '../../../src/commands/words/index.js';

/* The judge modes end to end through the binary, against local judges of known bias (issue 14). */

const dirs = tempDirs('modes');
let dir: string;
const N = 12;
const rows = synthRows(N, ['mcp', 'search', 'os']);

/** Predictions of two "models": each row's gen names its side, so a judge can tell them apart. */
async function predictions(name: string, tag: string, keep: (r: SynthRow, i: number) => boolean = () => true): Promise<string> {
  const path = join(dir, `${name}.jsonl`);
  const lines = rows
    .filter(keep)
    .map((r) => JSON.stringify({ ...r, gen: `<think>x</think><predicted_observation>${tag} of ${rowMarker(r)}</predicted_observation>` }));
  await writeFile(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

let server: FakeServer;
before(async () => {
  dir = await dirs.make();
  server = await startOpenAIServer({ models: ['judge'] });
});
after(async () => {
  await server.close();
  await dirs.cleanup();
});

async function judge(reply: ReplyFn, out: string, args: string[]) {
  server.setOptions({ reply, latencyMs: 0 });
  server.log.length = 0;
  const r = await runAwb(['judge', '--judge-base-url', server.url, '--judge-model', 'judge', '-o', join(dir, out), '-c', '4', ...args]);
  return r;
}

async function scoreJson(file: string) {
  const r = await runAwb(['score', join(dir, file), '--format', 'json', '--bootstrap', '200']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { modes: Array<{ mode: string; overall: Record<string, { value: number | null; ci95?: number[] }> }> };
}

async function readRows(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(join(dir, file), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('turing: a judge that always spots the real observation fools 0%, one always fooled 100%, always-A 50% with consistency 0', async () => {
  const cand = await predictions('cand', 'CAND');
  const expected = { spotter: [0, 100], fooled: [100, 100], alwaysA: [50, 0] } as const;
  for (const [name, [fooling, consistency]] of Object.entries(expected)) {
    const r = await judge(judges[name]!, `turing-${name}.jsonl`, ['--mode', 'turing', '--predictions', cand]);
    assert.equal(r.code, 0, r.stderr);
    // Both orders sent for every row: the real observation once at A, once at B.
    assert.equal(server.log.filter((e) => e.outcome === 'ok').length, 2 * N);
    for (const row of rows) {
      const sent = server.log.filter((e) => asks(e.request!, row));
      assert.deepEqual(sent.map((e) => realAt(e.request!)).sort(), ['A', 'B'], rowMarker(row));
    }
    const s = await scoreJson(`turing-${name}.jsonl`);
    assert.equal(s.modes[0]!.mode, 'turing');
    assert.equal(s.modes[0]!.overall.fooling_rate!.value, fooling, name);
    assert.equal(s.modes[0]!.overall.position_consistency!.value, consistency, name);
    assert.ok(Array.isArray(s.modes[0]!.overall.fooling_rate!.ci95));
  }
  const table = await runAwb(['score', join(dir, 'turing-alwaysA.jsonl'), '--format', 'markdown']);
  assert.match(table.stdout, /Fooling rate/);
  assert.match(table.stdout, /Overall \| 12\/12 \| 50\.00/);
  const csv = await runAwb(['score', join(dir, 'turing-alwaysA.jsonl'), '--format', 'csv']);
  assert.match(csv.stdout, /turing,Overall,fooling_rate,50,/);
  // Score counts no tokens of a choice mode: prices given for it say so rather than pass in silence.
  const alwaysA = join(dir, 'turing-alwaysA.jsonl');
  const priced = await runAwb(['score', alwaysA, '--price-input', '2', '--price-output', '8']);
  assert.equal(priced.code, 0, priced.stderr);
  const unpriced = noticed({ kind: 'choice-file-unpriced', file: alwaysA, mode: 'turing', manifest: `${alwaysA}.manifest.json` });
  assert.ok(priced.stderr.includes(`awb: warning: ${unpriced}\n`), priced.stderr);
  assert.ok(!table.stderr.includes(unpriced), table.stderr);
  // --by-judge on a file of one judge: its figures alone, and a note that there is no panel to take apart.
  const single = await runAwb(['score', alwaysA, '--by-judge', '--format', 'csv']);
  assert.equal(single.code, 0, single.stderr);
  const noPanel = noticed({ kind: 'choice-file-no-panel', file: alwaysA, mode: 'turing' });
  assert.ok(single.stderr.includes(`awb: warning: ${noPanel}\n`), single.stderr);
  assert.equal(single.stdout, csv.stdout);
  assert.ok(!csv.stderr.includes(noPanel), csv.stderr);
});

test('pairwise: always the candidate 100, always the reference 0, always A 50; rows missing from the reference are listed and not sent', async () => {
  const cand = await predictions('cand', 'CAND');
  const ref = await predictions('ref', 'REF', (_r, i) => i !== 3 && i !== 7);
  const expected = { candidate: 100, reference: 0, alwaysA: 50 } as const;
  for (const [name, win] of Object.entries(expected)) {
    const r = await judge(judges[name]!, `pair-${name}.jsonl`, ['--mode', 'pairwise', '--predictions', cand, '--reference', ref]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /2 row\(s\) in .*cand\.jsonl but not in the reference/);
    assert.equal(server.log.filter((e) => e.outcome === 'ok').length, 2 * (N - 2));
    for (const missing of [rows[3]!, rows[7]!]) assert.ok(!server.log.some((e) => asks(e.request!, missing)));
    const s = await scoreJson(`pair-${name}.jsonl`);
    assert.equal(s.modes[0]!.overall.win_rate!.value, win, name);
  }
  const out = await readRows('pair-alwaysA.jsonl');
  assert.equal(out.length, N);
  assert.equal(out.filter((r) => r.error_message === 'No reference row').length, 2);
  // The reference file's hash is part of the settings guard: another reference refuses to resume.
  const ref2 = await predictions('ref2', 'REF2');
  const again = await judge(judges.alwaysA!, 'pair-alwaysA.jsonl', ['--mode', 'pairwise', '--predictions', cand, '--reference', ref2]);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /reference/);
});

test('--repeat 3 stores three judgements per row and score reports the judge noise they give', async () => {
  const cand = await predictions('cand', 'CAND');
  // Grades that change from request to request, so repeats of a row differ.
  const varying: ReplyFn = (_req, ctx) => {
    const g = 1 + (ctx.requestNo % 5);
    const scores = { format: g, factuality: g, consistency: 1 + ((ctx.requestNo * 3) % 5), realism: g, quality: g };
    return `<final_evaluation>${JSON.stringify({ scores, strengths: [], weaknesses: [] })}</final_evaluation>`;
  };
  const r = await judge(varying, 'repeat.jsonl', ['--predictions', cand, '--repeat', '3', '-c', '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.log.length, 3 * N);
  const out = await readRows('repeat.jsonl');
  const byDomain = new Map<string, number[]>();
  for (const row of out) {
    const repeats = row.judge_repeats as Array<{ total_score: number; failed: number }>;
    assert.equal(repeats.length, 3);
    const totals = repeats.map((x) => x.total_score);
    assert.ok(Math.abs((row.total_score as number) - totals.reduce((a, b) => a + b, 0) / 3) < 1e-12);
    const d = String(row.task).replace(/.*\//, '');
    byDomain.set(d, [...(byDomain.get(d) ?? []), sampleSd(totals) * 25]);
  }
  const perDomain = [...byDomain.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
  const noise = perDomain.reduce((a, b) => a + b, 0) / perDomain.length;
  const s = await scoreJson('repeat.jsonl');
  const repeat = s.modes.find((m) => m.mode === 'repeat')!;
  assert.ok(Math.abs(repeat.overall.judge_noise!.value! - noise) < 1e-9, `${repeat.overall.judge_noise!.value} vs ${noise}`);
  // The same file still gets its leaderboard (grades that are means of three).
  assert.equal((s as { format?: string }).format, 'agentworldbench-score');
});

test('turing resumes after a kill without asking finished rows again', async () => {
  const cand = await predictions('cand', 'CAND');
  // Three rows (both orders each) answered, the rest held until the run is killed: it is killed with exactly three done.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let asked = 0;
  const heldAfterThree: ReplyFn = async (req, ctx) => {
    if (++asked > 6) await held;
    return judges.spotter!(req, ctx);
  };
  server.setOptions({ reply: heldAfterThree, latencyMs: 0 });
  server.log.length = 0;
  const out = join(dir, 'resume.jsonl');
  const args = [
    'judge',
    '--judge-base-url',
    server.url,
    '--judge-model',
    'judge',
    '-o',
    out,
    '-c',
    '1',
    '--mode',
    'turing',
    '--predictions',
    cand,
  ];
  const { child, exited } = startAwb(args);
  await waitForLines(out, 3, exited);
  child.kill('SIGKILL');
  await exited;
  release();
  const first = await readRows('resume.jsonl').catch(() => []);
  const finished = first as unknown as SynthRow[];
  assert.equal(finished.length, 3);
  server.setOptions({ reply: judges.spotter! });
  server.log.length = 0;
  const r = await runAwb(args);
  assert.equal(r.code, 0, r.stderr);
  for (const row of finished) assert.ok(!server.log.some((e) => asks(e.request!, row)), `${rowMarker(row)} asked again`);
  assert.equal(server.log.length, 2 * (N - finished.length));
  const all = await readRows('resume.jsonl');
  assert.equal(all.length, N);
  assert.ok(all.every((row) => row.failed === 0));
});

test('pairwise shards merge, rows without a reference included, and score as one file', async () => {
  const cand = await predictions('cand', 'CAND');
  const ref = await predictions('ref', 'REF', (_r, i) => i !== 3);
  for (const k of [1, 2]) {
    const r = await judge(judges.candidate!, `shard${k}.jsonl`, [
      '--mode',
      'pairwise',
      '--predictions',
      cand,
      '--reference',
      ref,
      '--shard',
      `${k}/2`,
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
  const merged = join(dir, 'merged.jsonl');
  const m = await runAwb(['merge', merged, join(dir, 'shard1.jsonl'), join(dir, 'shard2.jsonl')]);
  assert.equal(m.code, 0, m.stderr);
  const s = await scoreJson('merged.jsonl');
  assert.equal(s.modes[0]!.overall.win_rate!.value, 100);
  assert.equal((await readRows('merged.jsonl')).length, N);
});

test("a judged file of one mode given as --predictions to another is judged afresh: no earlier mode's fields are left in its rows", async () => {
  const cand = await predictions('cand', 'CAND');
  const grades: ReplyFn = () =>
    `<final_evaluation>${JSON.stringify({ scores: { format: 4, factuality: 4, consistency: 4, realism: 4, quality: 4 }, strengths: [], weaknesses: [] })}</final_evaluation>`;
  const turing = await judge(judges.alwaysA!, 'again-turing.jsonl', ['--mode', 'turing', '--predictions', cand]);
  assert.equal(turing.code, 0, turing.stderr);
  // The turing file as the rubric judge's predictions: its rows get grades, and score must read them as grades.
  const rubric = await judge(grades, 'again-rubric.jsonl', ['--predictions', join(dir, 'again-turing.jsonl')]);
  assert.equal(rubric.code, 0, rubric.stderr);
  for (const row of await readRows('again-rubric.jsonl')) {
    assert.equal(row.turing, undefined);
    assert.equal(row.total_score, 4);
  }
  const s = (await scoreJson('again-rubric.jsonl')) as unknown as { modes?: unknown[]; runs: unknown[] };
  assert.equal(s.modes, undefined);
  assert.equal(s.runs.length, 1);
  // And back: the graded file judged in pairwise mode keeps no grades of the rubric judge.
  const ref = await predictions('ref', 'REF');
  const pair = await judge(judges.candidate!, 'again-pair.jsonl', [
    '--mode',
    'pairwise',
    '--predictions',
    join(dir, 'again-rubric.jsonl'),
    '--reference',
    ref,
  ]);
  assert.equal(pair.code, 0, pair.stderr);
  for (const row of await readRows('again-pair.jsonl')) {
    assert.equal(row.total_score, undefined);
    assert.equal(row.judge_raw_output, undefined);
    assert.equal((row.pairwise as { failed: number }).failed, 0);
  }
});

test('awb rows refuses a turing or pairwise file as compare does, rather than listing its rows with grades of 0', async () => {
  const cand = await predictions('cand', 'CAND');
  const ref = await predictions('ref', 'REF');
  const t = await judge(judges.alwaysA!, 'rows-turing.jsonl', ['--mode', 'turing', '--predictions', cand]);
  assert.equal(t.code, 0, t.stderr);
  const p = await judge(judges.candidate!, 'rows-pair.jsonl', ['--mode', 'pairwise', '--predictions', cand, '--reference', ref]);
  assert.equal(p.code, 0, p.stderr);
  for (const [file, mode] of [
    ['rows-turing.jsonl', 'turing'],
    ['rows-pair.jsonl', 'pairwise'],
  ] as const) {
    for (const extra of [[], ['--worst', '3'], ['--format', 'json']]) {
      const r = await runAwb(['rows', join(dir, file), ...extra]);
      assert.equal(r.code, 2, `${file} ${extra.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`${file}: a ${mode} file .*no grades.*score.*report`));
    }
  }
});
