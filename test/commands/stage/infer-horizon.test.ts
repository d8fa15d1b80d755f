import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { awb, startAwb } from '../../support/cli.js';
import { countNewlines, readRowsOf, synthRows, tempDirs, waitFor, writeDataset, worldReply, type SynthRow } from '../../support/dataset.js';
import { inferArgs, useServers } from '../../support/harness.js';
import { driftingWorldModel, ownObservations } from '../../support/drift-servers.js';
import type { LogEntry } from '../../support/openai-server.js';

/* infer --horizon (issue 53): free-running rows, their steps, sharing, resume and the dry run. */

const server = useServers();
const temps = tempDirs('horizon');
const tmp = () => temps.make();
after(() => temps.cleanup());
const TIMING = ['latency_ms', 'ttft_ms', 'decode_tokens_per_s', 'endpoint'];
const untimed = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([k]) => !TIMING.includes(k)));
const answered = (log: readonly LogEntry[]) => log.filter((e) => e.outcome === 'ok');

test('--horizon 0 is the teacher-forced run: the same requests, rows and settings', async () => {
  const dir = await tmp();
  const data = await writeDataset(join(dir, 'data'), synthRows(24));
  const plain = await server({ reply: worldReply });
  const zero = await server({ reply: worldReply });
  const a = await awb(...inferArgs(plain.url, data.dir, join(dir, 'a.jsonl'), ['--temperature', '0']));
  const b = await awb(...inferArgs(zero.url, data.dir, join(dir, 'b.jsonl'), ['--temperature', '0', '--horizon', '0']));
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const bodies = (log: readonly LogEntry[]) => log.map((e) => JSON.stringify(e.request)).sort();
  assert.deepEqual(bodies(zero.log), bodies(plain.log));
  assert.deepEqual((await readRowsOf(join(dir, 'b.jsonl'))).map(untimed), (await readRowsOf(join(dir, 'a.jsonl'))).map(untimed));
  // The settings are the same but for the two servers' hosts; no steps file is kept.
  const settings = async (f: string) => {
    const { world_model, ...rest } = JSON.parse(await readFile(`${f}.manifest.json`, 'utf8')).settings;
    return { ...rest, model: world_model.model };
  };
  assert.deepEqual(await settings(join(dir, 'b.jsonl')), await settings(join(dir, 'a.jsonl')));
  await assert.rejects(readFile(join(dir, 'b.jsonl.steps.jsonl')), { code: 'ENOENT' });
});

test("--horizon H: the last H earlier observations are the model's own, generated in turn order; rows record them", async () => {
  const dir = await tmp();
  const rows = synthRows(30).filter((r) => r.turn_idx === 3);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await server({ reply: driftingWorldModel });
  const out = join(dir, 'h1.jsonl');
  const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '1']));
  assert.equal(r.code, 0, r.stderr);
  // Each row: turn 2 generated from the real turn 1, then turn 3 from it: two requests, the second extending the first.
  assert.equal(s.stats.requests, 2 * rows.length);
  const got = await readRowsOf(out);
  for (const row of got) {
    assert.equal(row.horizon, 1);
    const rollout = row.rollout as { turn: number; gen: string; usage?: unknown }[];
    assert.deepEqual(
      rollout.map((x) => x.turn),
      [2],
    );
    assert.match(rollout[0]!.gen, /PRED q=4/);
    assert.match(String(row.gen), /PRED q=3/);
    // The real history stays in the row: the judge grades against it.
    assert.deepEqual(row.response, rows.find((x) => x.id === row.id)!.response);
  }
  for (const e of answered(s.log)) {
    const final = e.request!.messages.length === 6;
    assert.equal(ownObservations(e.request!), final ? 1 : 0);
  }
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
  assert.equal(manifest.settings.horizon, 1);
});

test('--horizon all: the rows of a trajectory share one rollout, each step sent once', async () => {
  const dir = await tmp();
  const rows = synthRows(42);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await server({ reply: driftingWorldModel });
  const out = join(dir, 'all.jsonl');
  const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', 'all', '-c', '8']));
  assert.equal(r.code, 0, r.stderr);
  // One step per turn of each trajectory: as many requests as rows, none asked twice.
  const longest = new Map<string, number>();
  for (const row of rows) longest.set(`${row.task}/${row.id}`, Math.max(longest.get(`${row.task}/${row.id}`) ?? 0, row.turn_idx));
  assert.equal(
    s.stats.requests,
    [...longest.values()].reduce((a, b) => a + b, 0),
  );
  assert.deepEqual(s.repeatedSuccesses(), []);
  const got = await readRowsOf(out);
  const byKey = new Map(got.map((x) => [`${x.task}/${x.id}/${x.turn_idx}`, x]));
  for (const row of got.filter((x) => (x.turn_idx as number) > 1)) {
    const rollout = row.rollout as { turn: number; gen: string; shared?: boolean }[];
    assert.deepEqual(
      rollout.map((x) => x.turn),
      Array.from({ length: (row.turn_idx as number) - 1 }, (_, i) => i + 1),
    );
    // The earlier row's prediction is this row's generated observation of that turn: one rollout.
    const earlier = byKey.get(`${row.task}/${row.id}/${(row.turn_idx as number) - 1}`)!;
    assert.equal(rollout.at(-1)!.gen, earlier.gen);
    assert.equal(rollout.at(-1)!.shared, true);
    assert.match(String(row.gen), new RegExp(`PRED q=${4 - ((row.turn_idx as number) - 1)}`));
  }
});

test('a resume after kill -9 in the middle of chains sends no finished step again', async () => {
  const dir = await tmp();
  const rows: SynthRow[] = synthRows(60).filter((r) => r.turn_idx === 3);
  const data = await writeDataset(join(dir, 'data'), rows);
  // The last step of every chain never comes back: the run is killed with each row two steps in.
  const hanging = await server({ reply: driftingWorldModel, faults: (req) => (ownObservations(req) === 2 ? 'hang' : undefined) });
  const out = join(dir, 'all.jsonl');
  const steps = `${out}.steps.jsonl`;
  const first = startAwb(inferArgs(hanging.url, data.dir, out, ['--horizon', 'all', '-c', '16']));
  const finished = 2 * rows.length;
  await waitFor(async () => (await countNewlines(steps).catch(() => 0)) >= 1 + finished, first.exited, `${finished} steps in ${steps}`);
  first.child.kill('SIGKILL');
  await first.exited;
  const before = answered(hanging.log).map((e) => e.hash);
  assert.equal(before.length, finished);
  assert.equal(await countNewlines(out).catch(() => 0), 0);

  const s = await server({ reply: driftingWorldModel });
  const second = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', 'all', '-c', '16']));
  assert.equal(second.code, 0, second.stderr);
  const again = answered(s.log).filter((e) => before.includes(e.hash));
  assert.deepEqual(again, [], 'a step answered and kept before the kill was sent again');
  assert.equal(s.stats.requests, rows.length);
  const got = await readRowsOf(out);
  assert.equal(got.length, rows.length);
  for (const row of got) assert.match(String(row.gen), /PRED q=2/);
});

test('a resume at another horizon is refused, --force or not', async () => {
  const dir = await tmp();
  const data = await writeDataset(join(dir, 'data'), synthRows(9));
  const s = await server({ reply: driftingWorldModel });
  const out = join(dir, 'p.jsonl');
  assert.equal((await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '1', '--limit', '1']))).code, 0);
  for (const extra of [[], ['--force']]) {
    const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '2', ...extra]));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /horizon 1 \(free-running\), not horizon 2/);
  }
  const r = await awb(...inferArgs(s.url, data.dir, out));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not horizon 0 \(teacher-forced\)/);
});

test('--dry-run counts every step once and the multiple of the teacher-forced run', async () => {
  const dir = await tmp();
  const rows = synthRows(42);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await server({ reply: driftingWorldModel });
  const dry = async (h: string) => {
    const r = await awb(...inferArgs(s.url, data.dir, join(dir, 'x.jsonl'), ['--horizon', h, '--dry-run', '--format', 'json']));
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const all = await dry('all');
  // One step per turn of each trajectory, as the run sends them.
  assert.equal(all.requests, rows.length);
  const one = await dry('1');
  assert.equal(one.requests, rows.filter((r) => r.turn_idx > 2).length + rows.length);
  assert.equal(one.teacher_forced.requests, rows.length);
  assert.equal(one.multiple_of_teacher_forced.requests, Math.round((one.requests / rows.length) * 100) / 100);
  assert.ok(one.multiple_of_teacher_forced.prompt_tokens > 1);
  assert.equal(s.stats.requests, 0);
  const text = await awb(...inferArgs(s.url, data.dir, join(dir, 'x.jsonl'), ['--horizon', '1', '--dry-run']));
  assert.match(text.stderr + text.stdout, /x its requests/);
});

test('--horizon with --no-history is a usage error', async () => {
  const dir = await tmp();
  const data = await writeDataset(join(dir, 'data'), synthRows(3));
  const r = await awb(...inferArgs('http://127.0.0.1:9/v1', data.dir, join(dir, 'x.jsonl'), ['--horizon', '2', '--no-history']));
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--horizon/);
});

test('shards of a free-running run merge into one: the same rows as one run, the horizon kept', async () => {
  const dir = await tmp();
  const rows = synthRows(42);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await server({ reply: driftingWorldModel });
  const whole = join(dir, 'whole.jsonl');
  assert.equal((await awb(...inferArgs(s.url, data.dir, whole, ['--horizon', '2', '--temperature', '0']))).code, 0);
  const shards = ['1/2', '2/2'].map((shard, i) => join(dir, `shard-${i + 1}.jsonl`));
  for (const [i, out] of shards.entries()) {
    const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '2', '--temperature', '0', '--shard', `${i + 1}/2`]));
    assert.equal(r.code, 0, r.stderr);
  }
  const merged = join(dir, 'merged.jsonl');
  const m = await awb('merge', ...shards, '-o', merged);
  assert.equal(m.code, 0, m.stderr);
  const byKey = (file: string) =>
    readRowsOf(file).then((xs) => new Map(xs.map((x) => [`${String(x.task)}/${String(x.id)}/${String(x.turn_idx)}`, x])));
  const [a, b] = await Promise.all([byKey(whole), byKey(merged)]);
  assert.equal(b.size, rows.length);
  for (const [key, row] of a) {
    const other = b.get(key)!;
    assert.equal(other.horizon, 2);
    assert.equal(other.gen, row.gen, key);
    assert.deepEqual(
      (other.rollout as { gen: string }[] | undefined)?.map((x) => x.gen),
      (row.rollout as { gen: string }[] | undefined)?.map((x) => x.gen),
    );
  }
  const manifest = JSON.parse(await readFile(`${merged}.manifest.json`, 'utf8'));
  assert.equal(manifest.settings.horizon, 2);
});
