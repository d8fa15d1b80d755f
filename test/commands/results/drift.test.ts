import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { awb } from '../../support/cli.js';
import { synthRows, tempDirs, writeDataset, type SynthRow } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { driftingWorldModel, expectedDrop, knownJudge } from '../../support/drift-servers.js';

/*
 * awb drift against a world model that loses a known step of quality per
 * observation of its own in its history, graded by a judge of known behaviour:
 * the curve is known in advance and must be recovered within its intervals.
 */

const server = useServers();
const temps = tempDirs('drift');
after(() => temps.cleanup());

const HORIZONS = ['0', '1', 'all'] as const;
let rows: SynthRow[];
const judged = new Map<string, string>();

before(async () => {
  const dir = await temps.make();
  rows = synthRows(210);
  const data = await writeDataset(join(dir, 'data'), rows);
  const world = await server({ reply: driftingWorldModel });
  const judge = await server({ reply: knownJudge });
  for (const h of HORIZONS) {
    const predictions = join(dir, `h${h}`, 'predictions.jsonl');
    const out = join(dir, `h${h}`, 'judged.jsonl');
    const inferred = await awb(...inferArgs(world.url, data.dir, predictions, ['--horizon', h, '-c', '32']));
    assert.equal(inferred.code, 0, inferred.stderr);
    const graded = await awb(...judgeArgs(judge.url, predictions, out, ['-c', '32']));
    assert.equal(graded.code, 0, graded.stderr);
    judged.set(h, out);
  }
});

const files = () => HORIZONS.map((h) => judged.get(h)!);

interface Point {
  horizon: number | 'all';
  score: number;
  drop: number;
  drop_ci95: [number, number] | null;
  significant: boolean;
}
interface Curve {
  scope: string;
  rows: number;
  first_significant_horizon: number | 'all' | null;
  points: Point[];
}

test('the drift curve recovers the known drop per horizon within its intervals, per domain and Overall', async () => {
  const r = await awb('drift', ...files(), '--format', 'json');
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as { runs: { horizon: number | 'all' }[]; curves: Curve[] };
  assert.deepEqual(
    doc.runs.map((x) => x.horizon),
    [0, 1, 'all'],
  );
  const turnsOf = (domain: string) => rows.filter((x) => x.task.endsWith(domain)).map((x) => x.turn_idx);
  const domains = doc.curves.filter((c) => c.scope !== 'overall');
  assert.equal(domains.length, 7);
  for (const c of domains) {
    const turns = turnsOf(c.scope);
    assert.equal(c.rows, turns.length);
    for (const p of c.points.slice(1)) {
      const known = expectedDrop(turns, p.horizon);
      assert.ok(p.drop_ci95, `${c.scope} H=${p.horizon}: no interval`);
      assert.ok(p.drop_ci95[0] <= known && known <= p.drop_ci95[1], `${c.scope} H=${p.horizon}: ${known} outside [${p.drop_ci95}]`);
    }
  }
  const overall = doc.curves.find((c) => c.scope === 'overall')!;
  for (const p of overall.points.slice(1)) {
    const known = domains.reduce((s, c) => s + expectedDrop(turnsOf(c.scope), p.horizon), 0) / domains.length;
    assert.ok(p.drop_ci95![0] <= known && known <= p.drop_ci95![1], `Overall H=${p.horizon}: ${known} outside [${p.drop_ci95}]`);
    assert.ok(p.significant, `Overall H=${p.horizon}: a drop of ${known} points should be significant`);
  }
  assert.equal(overall.points[0]!.drop, 0);
  assert.equal(overall.first_significant_horizon, 1);
  // The drop is the difference of the scores shown.
  for (const p of overall.points) assert.ok(Math.abs(overall.points[0]!.score - p.score - p.drop) < 1e-9);
});

test('every format carries the curve: table, markdown, CSV', async () => {
  const table = await awb('drift', ...files());
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /H=0 \(teacher-forced\)/);
  assert.match(table.stdout, /First significant drop/);
  assert.match(table.stdout, /Overall \(macro\)/);
  const md = await awb('drift', ...files(), '-f', 'md');
  assert.match(md.stdout, /\| Domain \|/);
  const csv = await awb('drift', ...files(), '-f', 'csv');
  assert.equal(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trim().split('\n');
  assert.equal(lines[0], 'domain,horizon,rows,trajectories,score,score_ci_low,score_ci_high,drop,drop_ci_low,drop_ci_high,significant,first_significant_horizon');
  assert.equal(lines.length, 1 + 8 * HORIZONS.length);
});

test('drift refuses runs without a teacher-forced one, or two of one horizon', async () => {
  const none = await awb('drift', judged.get('1')!, judged.get('all')!);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /teacher-forced/);
  const twice = await awb('drift', judged.get('0')!, judged.get('1')!, judged.get('1')!);
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /both at horizon 1/);
});

test('score notes that runs at different horizons are not comparable', async () => {
  const r = await awb('score', judged.get('0')!, judged.get('1')!);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /free-running horizon .* differs/);
});

/** The page's figures (its JSON data block) and its rows (the packed blocks), as the page reads them. */
async function pageOf(file: string): Promise<{ data: Record<string, unknown>; rows: Record<string, unknown>[] }> {
  const html = await readFile(file, 'utf8');
  const data = JSON.parse(/<script type="application\/json" id="awb-data">(.*?)<\/script>/s.exec(html)![1]!) as Record<string, unknown>;
  const packed = [...html.matchAll(/<script type="application\/octet-stream" class="awb-rows">(.*?)<\/script>/gs)].map((m) => m[1]).join('');
  return { data, rows: JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8')) as Record<string, unknown>[] };
}

test("the report draws score against horizon per domain and Overall, and a row's page shows its rollout beside the real observations", async () => {
  const dir = await temps.make();
  const page = join(dir, 'report.html');
  const r = await awb('report', ...files(), '-o', page);
  assert.equal(r.code, 0, r.stderr);
  const drift = await awb('drift', ...files(), '--format', 'json');
  const curves = (JSON.parse(drift.stdout) as { curves: Curve[] }).curves;
  const { data, rows: shown } = await pageOf(page);
  const d = data.drift as {
    horizons: string[];
    curves: { label: string; first: string; points: { s: number; d: number; dci: [number, number] | null; sig: boolean }[] }[];
  };
  assert.deepEqual(d.horizons, ['H=0 (teacher-forced)', 'H=1', 'H=all']);
  // The same curves as awb drift: a line per domain, then Overall, with the same scores, drops and intervals.
  assert.equal(d.curves.length, curves.length);
  d.curves.forEach((c, i) => {
    const want = curves[i]!;
    c.points.forEach((p, h) => {
      assert.ok(Math.abs(p.s - want.points[h]!.score) < 1e-9, `${c.label} H=${want.points[h]!.horizon}`);
      assert.ok(Math.abs(p.d - want.points[h]!.drop) < 1e-9);
      assert.deepEqual(p.dci, want.points[h]!.drop_ci95);
      assert.equal(p.sig, want.points[h]!.significant);
    });
    assert.equal(c.first, want.first_significant_horizon === null ? 'none' : `H=${want.first_significant_horizon}`);
  });
  assert.equal(d.curves.at(-1)!.label, 'Overall (macro)');
  // A free-running row at turn 3: the generated observations of turns 1 and 2 (all) beside the real ones.
  const runAll = (data.runs as { file: string }[]).findIndex((x) => x.file === judged.get('all'));
  const row = shown.find((x) => x.run === runAll && x.t === 3)!;
  const real = rows.find((x) => String(x.id) === String(row.id) && x.task.endsWith(String(row.d)) && x.turn_idx === 3)!;
  const ro = row.ro as [number, string, string][];
  assert.deepEqual(
    ro.map(([turn]) => turn),
    [1, 2],
  );
  ro.forEach(([turn, generated, truth]) => {
    assert.match(generated, /PRED q=\d/);
    assert.equal(truth, real.response[turn - 1]);
  });
  // A teacher-forced row has no rollout to show.
  const runTf = (data.runs as { file: string }[]).findIndex((x) => x.file === judged.get('0'));
  assert.ok(shown.filter((x) => x.run === runTf).every((x) => x.ro === undefined));
});

test('awb rows shows a free-running row with its rollout beside the real observations, in both formats', async () => {
  const row = rows.find((x) => x.turn_idx === 3)!;
  const domain = row.task.slice(row.task.lastIndexOf('/') + 1);
  const ref = `${domain}/${row.id}/3`;
  const json = await awb('rows', judged.get('all')!, ref, '--format', 'json');
  assert.equal(json.code, 0, json.stderr);
  const [shown] = JSON.parse(json.stdout) as { rollout: { turn: number; generated: string; real: string }[] }[];
  assert.deepEqual(
    shown!.rollout.map((s) => s.turn),
    [1, 2],
  );
  shown!.rollout.forEach((s) => {
    assert.match(s.generated, /^PRED q=\d after /);
    assert.equal(s.real, row.response[s.turn - 1]);
  });
  const block = await awb('rows', judged.get('all')!, ref);
  assert.equal(block.code, 0, block.stderr);
  assert.match(block.stdout, /turn 1: generated \(rollout\) +│ turn 1: real \(response\[0\]\)/);
  assert.match(block.stdout, /turn 2: generated \(rollout\) +│ turn 2: real \(response\[1\]\)/);
  // A teacher-forced row shows none.
  const plain = await awb('rows', judged.get('0')!, ref, '--format', 'json');
  assert.equal((JSON.parse(plain.stdout) as Record<string, unknown>[])[0]!.rollout, undefined);
});

test('publish says a free-running run is free-running, and why it is not ranked', async () => {
  const out = join(await temps.make(), 'hub');
  const r = await awb('publish', judged.get('1')!, '--out', out, '--allow-unranked');
  assert.equal(r.code, 0, r.stderr);
  const yaml = await readFile(join(out, '.eval_results', 'agentworldbench.yaml'), 'utf8');
  assert.match(yaml, /history: full, free-running \(infer --horizon 1: the last 1 earlier observations the model's own\)/);
  assert.match(yaml, /free-running horizon 1: published numbers are teacher-forced/);
  assert.doesNotMatch(yaml, /teacher-forced \(horizon: one turn\)/);
});
