import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
  rows = synthRows(420);
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

test('publish says a free-running run is free-running, and why it is not ranked', async () => {
  const out = join(await temps.make(), 'hub');
  const r = await awb('publish', judged.get('1')!, '--out', out, '--allow-unranked');
  assert.equal(r.code, 0, r.stderr);
  const yaml = await readFile(join(out, '.eval_results', 'agentworldbench.yaml'), 'utf8');
  assert.match(yaml, /history: full, free-running \(infer --horizon 1: the last 1 earlier observations the model's own\)/);
  assert.match(yaml, /free-running horizon 1: published numbers are teacher-forced/);
  assert.doesNotMatch(yaml, /teacher-forced \(horizon: one turn\)/);
});
