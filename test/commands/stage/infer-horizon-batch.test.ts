import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { awb, startAwb } from '../../support/cli.js';
import { answering, startBatchServer, type BatchLine, type BatchReplyFn, type BatchServer } from '../../support/batch-server.js';
import { countNewlines, readRowsOf, synthRows, tempDirs, waitFor, writeDataset, type SynthRow } from '../../support/dataset.js';
import { inferArgs } from '../../support/harness.js';
import { driftingWorldModel, ownObservations } from '../../support/drift-servers.js';
import type { ChatRequest } from '../../support/openai-server.js';

/* infer --horizon with --batch (issue 53): a free-running run in rounds of batches, each round the next step of every row. */

const temps = tempDirs('horizon-batch');
const servers: BatchServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await temps.cleanup();
});

async function batchServer(reply: BatchReplyFn = answering(driftingWorldModel), holdAfter?: number): Promise<BatchServer> {
  const s = await startBatchServer({ reply, ...(holdAfter !== undefined && { holdAfter }) });
  servers.push(s);
  return s;
}

const BATCH = ['--batch', '--batch-poll', '0.01'];
const keyOf = (row: Record<string, unknown>) => `${String(row.task)}|${String(row.id)}|${String(row.turn_idx)}`;
/** The rows by key, less what only says how they were sent (the time, the batch's usage mark). */
async function rowsOf(path: string): Promise<Map<string, Record<string, unknown>>> {
  const rows = await readRowsOf(path);
  return new Map(
    rows.map((row) => {
      const { latency_ms: _l, batch_usage: _b, ...rest } = row;
      return [keyOf(row), rest];
    }),
  );
}
const linesOf = (s: BatchServer) =>
  [...s.files.values()].filter((f) => f.purpose === 'batch').map((f) => f.content.trim().split('\n').length);
const settingsOf = async (out: string) => {
  const { world_model, batch: _b, ...rest } = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')).settings;
  return { ...rest, model: world_model.model };
};

/** The online run of the same rows on the same server, for reference: the bodies it sent (the server's count then starts afresh). */
async function onlineRun(s: BatchServer, dataDir: string, out: string, horizon: string): Promise<BatchLine['body'][]> {
  const r = await awb(...inferArgs(s.url, dataDir, out, ['--horizon', horizon, '-c', '4']));
  assert.equal(r.code, 0, r.stderr);
  return s.online.splice(0);
}

test('--batch --horizon 2: a round per step, each request as the online run sends it; the same predictions file', async () => {
  const dir = await temps.make();
  const rows = synthRows(30);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await batchServer();
  const online = await onlineRun(s, data.dir, join(dir, 'online.jsonl'), '2');
  const out = join(dir, 'batch.jsonl');
  const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '2', ...BATCH]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.online.length, 0, 'nothing asked online');
  // Trajectories of up to three turns: three rounds, round k holding the k-th step of every row that has one.
  assert.equal(s.created, 3);
  const steps = (k: number) => rows.filter((x) => Math.min(x.turn_idx, 3) >= k).length;
  // Rows of a trajectory whose steps coincide (the same anchor, the same actions) share them: each sent once.
  const sent = linesOf(s);
  assert.equal(sent.length, 3);
  assert.ok(sent[0]! < steps(1) && sent[1]! <= steps(2) && sent[2]! <= steps(3), String(sent));
  // The very requests the online run sent, body for body.
  const bodies = (xs: readonly object[]) => xs.map((b) => JSON.stringify(b)).sort();
  const batched = [...s.files.values()]
    .filter((f) => f.purpose === 'batch')
    .flatMap((f) => f.content.trim().split('\n'))
    .map((l) => (JSON.parse(l) as BatchLine).body);
  assert.deepEqual(bodies(batched), bodies(online));
  assert.deepEqual(await rowsOf(out), await rowsOf(join(dir, 'online.jsonl')));
  const got = await readRowsOf(out);
  assert.ok(got.every((row) => JSON.stringify(row.batch_usage) === JSON.stringify(row.usage)));
  assert.deepEqual(await settingsOf(out), await settingsOf(join(dir, 'online.jsonl')));
  const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
  assert.deepEqual(manifest.batches, [...s.batches.keys()]);
  assert.match(r.stderr, /round 3, batch 1\/1 \S+: completed/);
  // Every answer is in the output: no state or batch file is left, the steps stay for a resume.
  assert.deepEqual((await readdir(dir)).filter((f) => f.startsWith('batch.jsonl.')).sort(), [
    'batch.jsonl.manifest.json',
    'batch.jsonl.steps.jsonl',
  ]);
});

test('--batch --horizon all: a trajectory shares one rollout, each step sent once, as online', async () => {
  const dir = await temps.make();
  const rows = synthRows(42);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await batchServer();
  const online = await onlineRun(s, data.dir, join(dir, 'online.jsonl'), 'all');
  const out = join(dir, 'all.jsonl');
  const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', 'all', ...BATCH]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.online.length, 0);
  assert.equal(
    linesOf(s).reduce((a, b) => a + b, 0),
    online.length,
  );
  assert.equal(online.length, rows.length, 'one step per turn of each trajectory');
  assert.deepEqual(await rowsOf(out), await rowsOf(join(dir, 'online.jsonl')));
});

/** Rows at their third turn, their online H=2 run for reference, and a server whose first round completes and second stays in progress until released. */
async function heldRound() {
  const dir = await temps.make();
  const rows: SynthRow[] = synthRows(45).filter((x) => x.turn_idx === 3);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await batchServer(answering(driftingWorldModel), 1);
  await onlineRun(s, data.dir, join(dir, 'online.jsonl'), '2');
  return { dir, rows, data, s, out: join(dir, 'p.jsonl') };
}

test('stopped (Ctrl-C), then killed (SIGKILL) while a round is in progress at the provider: the run collects that batch, sends no step twice', async () => {
  // The first round completes; the second stays in progress until released.
  const { dir, rows, data, s, out } = await heldRound();
  const args = (h: string) => inferArgs(s.url, data.dir, out, ['--horizon', h, ...BATCH]);
  const state = `${out}.batches.json`;
  const steps = `${out}.steps.jsonl`;
  const secondRecorded = async () => {
    const second = [...s.batches.values()][1];
    if (!second || second.status !== 'in_progress') return false;
    const text = await readFile(state, 'utf8').catch(() => '');
    return text.includes(second.id);
  };
  const first = startAwb(args('2'));
  await waitFor(secondRecorded, first.exited, 'the second round in progress');
  first.child.kill('SIGINT');
  const stopped = await first.exited;
  assert.equal(stopped.code, 130, stopped.stderr);

  // The second run goes back to the batch in progress: it polls it again.
  const held = [...s.batches.values()][1]!;
  const polled = held.polls;
  const second = startAwb(args('2'));
  await waitFor(() => held.polls > polled + 1, second.exited, 'the batch in progress polled again');
  second.child.kill('SIGKILL');
  await second.exited;
  assert.equal(s.created, 2, 'the second round was not submitted again');
  // The first round's answers are kept: one step per row.
  assert.equal(await countNewlines(steps), 1 + rows.length);

  // Another horizon: refused before anything changes, the steps and the batch kept.
  const other = await awb(...args('1'));
  assert.equal(other.code, 2, other.stderr);
  assert.match(other.stderr, /horizon/);
  assert.equal(await countNewlines(steps), 1 + rows.length);
  assert.ok(await readFile(state, 'utf8'));

  s.release();
  const again = await awb(...args('2'));
  assert.equal(again.code, 0, again.stderr);
  assert.equal(s.created, 3, 'round 2 collected, round 3 submitted');
  assert.equal(s.uploads, 3);
  assert.equal(s.online.length, 0);
  assert.deepEqual(linesOf(s), [rows.length, rows.length, rows.length]);
  assert.deepEqual(await rowsOf(out), await rowsOf(join(dir, 'online.jsonl')));
});

test('a run killed while a round is in progress and resumed online keeps the steps its finished rounds paid for', async () => {
  const { dir, rows, data, s, out } = await heldRound();
  const first = startAwb(inferArgs(s.url, data.dir, out, ['--horizon', '2', ...BATCH]));
  await waitFor(() => ([...s.batches.values()][1]?.polls ?? 0) > 1, first.exited, 'the second round polled');
  first.child.kill('SIGKILL');
  await first.exited;
  assert.equal(await countNewlines(`${out}.steps.jsonl`), 1 + rows.length);

  const online = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '2', '-c', '4']));
  assert.equal(online.code, 0, online.stderr);
  assert.equal(s.online.length, 2 * rows.length, "each row's last two steps, not the first the batch answered");
  assert.deepEqual(await rowsOf(out), await rowsOf(join(dir, 'online.jsonl')));
});

test('a step that failed or expired in its batch goes online with the rest of its row; the other rows go on in rounds', async () => {
  const dir = await temps.make();
  const rows: SynthRow[] = synthRows(45).filter((x) => x.turn_idx === 3);
  const data = await writeDataset(join(dir, 'data'), rows);
  const [failing, expiring] = [rows[0]!, rows[1]!];
  const good = answering(driftingWorldModel);
  // The row's actions name it: `[row DOMAIN/ID/TURN]`.
  const of = (line: BatchLine, row: SynthRow) => JSON.stringify(line.body.messages).includes(`/${row.id}/`);
  const s = await batchServer((line) => {
    if (line.custom_id !== 'online') {
      const own = ownObservations(line.body as ChatRequest);
      if (own === 0 && of(line, failing)) return { error: 'overloaded' };
      if (own === 1 && of(line, expiring)) return 'expire';
    }
    return good(line);
  });
  await onlineRun(s, data.dir, join(dir, 'online.jsonl'), '2');
  const out = join(dir, 'p.jsonl');
  const r = await awb(...inferArgs(s.url, data.dir, out, ['--horizon', '2', ...BATCH]));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.created, 3);
  // Rounds: every row's first step; all but the failed row's second; all but those two rows' third.
  assert.deepEqual(linesOf(s), [rows.length, rows.length - 1, rows.length - 2]);
  // Online: the failed row's three steps, the expired row's last two.
  assert.equal(s.online.length, 5);
  const got = await rowsOf(out);
  assert.ok([...got.values()].every((row) => row.error === undefined));
  assert.deepEqual(got, await rowsOf(join(dir, 'online.jsonl')));
  const marked = await readRowsOf(out);
  const batchMarked = marked.filter((row) => row.batch_usage !== undefined).length;
  assert.equal(batchMarked, rows.length - 2, 'the two rows whose last step went online are not batch-priced');
});

test('--dry-run with --batch --horizon says how many rounds the run takes, sending nothing', async () => {
  const dir = await temps.make();
  const rows = synthRows(30);
  const data = await writeDataset(join(dir, 'data'), rows);
  const s = await batchServer();
  const dry = async (extra: string[]) => {
    const r = await awb(...inferArgs(s.url, data.dir, join(dir, 'x.jsonl'), [...extra, '--dry-run', '--format', 'json']));
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  assert.equal((await dry(['--horizon', '2', '--batch'])).batch_rounds, 3);
  assert.equal((await dry(['--horizon', '1', '--batch'])).batch_rounds, 2);
  assert.equal((await dry(['--horizon', '2'])).batch_rounds, undefined);
  const text = await awb(...inferArgs(s.url, data.dir, join(dir, 'x.jsonl'), ['--horizon', '2', '--batch', '--dry-run']));
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stderr, /3 rounds/);
  assert.equal(s.created + s.online.length + s.uploads, 0);
});
