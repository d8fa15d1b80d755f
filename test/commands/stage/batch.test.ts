import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb, startAwb } from '../../support/cli.js';
import {
  answering,
  completion,
  startBatchServer,
  type BatchLine,
  type BatchReplyFn,
  type BatchServer,
} from '../../support/batch-server.js';
import {
  errorLines,
  judgeReply,
  makeDataset,
  stackLines,
  readRowsOf,
  rowMarker,
  tempDirs,
  worldReply,
  writePredictions,
  type Dataset,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { lastUserText, type ChatRequest, type ReplyFn } from '../../support/openai-server.js';

/* `--batch` end to end through the binary, against a local server speaking the Batch API (and chat completions, as OpenAI does). */

const dirs = tempDirs('batch-cli');
const serve = useServers();
const N = 12;
let dir: string;
let ds: Dataset;
let predictions: string;
const servers: BatchServer[] = [];

before(async () => {
  dir = await dirs.make();
  ds = await makeDataset(dir, N);
  predictions = join(dir, 'predictions.jsonl');
  await writePredictions(ds, predictions);
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await dirs.cleanup();
});

async function batchServer(reply: BatchReplyFn, extra: { pollsPerStatus?: number; dropCreateAnswers?: number } = {}): Promise<BatchServer> {
  const s = await startBatchServer({ reply, ...extra });
  servers.push(s);
  return s;
}

/** Requests in the server's (first) uploaded batch file. */
const batchLines = (server: BatchServer) =>
  [...server.files.values()]
    .find((f) => f.purpose === 'batch')!
    .content.trim()
    .split('\n').length;
/** Resolves once a run has recorded its (first) batch in `state` and the server was polled about it more than `polls` times. */
async function batchPolled(server: BatchServer, state: string, polls: number): Promise<void> {
  for (;;) {
    const recorded = await readFile(state, 'utf8').then(
      (t) => (JSON.parse(t) as { batches: Array<{ id?: string }> }).batches[0]?.id,
      () => undefined,
    );
    if (recorded && (server.batches.get(recorded)?.polls ?? 0) > polls) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
const judged = (out: string) => readRowsOf(join(dir, out));
const manifest = async (out: string) => JSON.parse(await readFile(join(dir, `${out}.manifest.json`), 'utf8')) as { batches?: string[] };
/** Whether a line judges this row: its marker in the action under evaluation (earlier turns hold other rows' markers). */
const asked = (line: BatchLine, rowIndex: number) => {
  const text = lastUserText(line.body as ChatRequest);
  return text.slice(text.indexOf('# Action to evaluate')).includes(rowMarker(ds.rows[rowIndex]!));
};
/** What a row says apart from timings and the batch's own bookkeeping. */
const judgement = (r: Record<string, unknown>) => {
  const { judge_latency_ms: _l, judge_batch_usage: _b, ...rest } = r;
  return rest;
};

test('a batch whose create answer is lost on the way is found, not submitted again', async () => {
  const server = await batchServer(answering(judgeReply), { dropCreateAnswers: 1 });
  const r = await runAwb(judgeArgs(server.url, predictions, join(dir, 'lost-create.jsonl'), ['--batch', '--batch-poll', '0.01']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 1, 'never submitted twice');
  assert.equal(server.batches.size, 1);
  assert.equal(server.online.length, 0, 'nothing asked online');
  assert.equal((await judged('lost-create.jsonl')).length, 12);
});

test('judge --batch writes the rows online judging writes, from one batch, and score prices it at half', async () => {
  const server = await batchServer(answering(judgeReply));
  const online = await runAwb(judgeArgs(server.url, predictions, join(dir, 'online.jsonl')));
  assert.equal(online.code, 0, online.stderr);
  assert.equal(server.created, 0);
  server.online.length = 0;

  const r = await runAwb(judgeArgs(server.url, predictions, join(dir, 'batch.jsonl'), ['--batch', '--batch-poll', '0.01']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 1, 'one batch');
  assert.equal(server.online.length, 0, 'nothing asked online');
  assert.match(r.stderr, /judge: batch 1\/1 batch_\S+: in_progress, 0\/12 done/);
  assert.match(r.stderr, /judge: batch 1\/1 batch_\S+: completed, 12\/12 done/);
  assert.doesNotMatch(r.stderr, /not in the batches' results/);

  const byKey = (rows: Record<string, unknown>[]) =>
    new Map(rows.map((row) => [`${String(row.task)}|${String(row.id)}|${String(row.turn_idx)}`, row]));
  const a = byKey(await judged('online.jsonl'));
  const b = byKey(await judged('batch.jsonl'));
  assert.equal(b.size, N);
  for (const [k, row] of a) {
    assert.deepEqual(judgement(b.get(k)!), judgement(row), k);
    assert.deepEqual(b.get(k)!.judge_batch_usage, row.judge_usage, 'the whole usage came from the batch');
  }
  const m = await manifest('batch.jsonl');
  assert.deepEqual(m.batches, [...server.batches.keys()]);
  assert.equal((await manifest('online.jsonl')).batches, undefined);
  // Every reply is in the output: the state and the batch files are gone.
  assert.deepEqual(
    (await readdir(dir)).filter((f) => f.includes('.batch')),
    [],
  );

  const cost = async (file: string) => {
    const s = await runAwb(['score', join(dir, file), '--format', 'json', '--price-input', '2', '--price-output', '8', '--no-ci']);
    assert.equal(s.code, 0, s.stderr);
    return (JSON.parse(s.stdout) as { runs: Array<{ usage: { judge: { cost_usd: number; batch_prompt_tokens: number } } }> }).runs[0]!.usage
      .judge;
  };
  const full = await cost('online.jsonl');
  const half = await cost('batch.jsonl');
  assert.ok(full.cost_usd > 0);
  assert.ok(Math.abs(half.cost_usd - full.cost_usd / 2) < 1e-12, `${half.cost_usd} vs ${full.cost_usd}`);
  assert.ok(half.batch_prompt_tokens > 0);
});

test('stopped by Ctrl-C, then killed mid-poll (SIGKILL), and run again, judge --batch goes back to the same batch: one batch in all', async () => {
  const server = await batchServer(answering(judgeReply), { pollsPerStatus: 100_000 });
  const out = join(dir, 'killed.jsonl');
  const args = judgeArgs(server.url, predictions, out, ['--batch', '--batch-poll', '0.01']);
  const state = `${out}.batches.json`;
  /** Starts the run and resolves once its batch is recorded and being polled (it stays `validating` until the test lets it go on). */
  const polling = async () => {
    const { child, exited } = startAwb(args);
    await batchPolled(server, state, 2);
    return { child, exited };
  };
  const first = await polling();
  first.child.kill('SIGINT');
  const stopped = await first.exited;
  assert.equal(stopped.code, 130, stopped.stderr);
  assert.match(stopped.stderr, /interrupted/);
  assert.ok(await stat(state), 'the state stays for the next run');

  const second = await polling();
  second.child.kill('SIGKILL');
  await second.exited;
  assert.equal(server.created, 1);
  assert.equal([...server.batches.values()][0]!.status, 'validating', 'neither stop cancelled the batch');

  server.setPollsPerStatus(1);
  const again = await runAwb(args);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(server.created, 1, 'never submitted twice');
  assert.equal(server.uploads, 1);
  assert.equal(server.online.length, 0);
  const rows = await readRowsOf(out);
  assert.equal(rows.length, N);
  assert.ok(rows.every((row) => row.failed === 0));
});

test('a run killed while its batch runs, given other settings, is refused: the batch replies were made with the old ones', async () => {
  const server = await batchServer(answering(judgeReply), { pollsPerStatus: 100_000 });
  const out = join(dir, 'resettled.jsonl');
  const args = (extra: string[]) => judgeArgs(server.url, predictions, out, ['--batch', '--batch-poll', '0.01', ...extra]);
  const state = `${out}.batches.json`;
  const { child, exited } = startAwb(args(['--temperature', '0.6']));
  // Polled long enough for a client that leaks a listener per poll to warn (Node warns at 11).
  await batchPolled(server, state, 15);
  child.kill('SIGKILL');
  const killed = await exited;
  assert.doesNotMatch(killed.stderr, /MaxListenersExceededWarning|memory leak/);

  server.setPollsPerStatus(1);
  const other = await runAwb(args(['--temperature', '0']));
  assert.equal(other.code, 2, other.stderr);
  assert.equal(errorLines(other.stderr).length, 1, other.stderr);
  assert.match(other.stderr, /resettled\.jsonl\.batches\.json.*other settings.*temperature/);
  assert.equal(stackLines(other.stderr).length, 0);
  await assert.rejects(stat(out), 'nothing written');
  assert.ok(await stat(state), 'the state stays');
  assert.equal(server.online.length, 0);

  const same = await runAwb(args(['--temperature', '0.6']));
  assert.equal(same.code, 0, same.stderr);
  assert.equal(server.created, 1, 'the same batch, collected');
  assert.equal((await readRowsOf(out)).length, N);
});

test('a run killed while its batch runs, then given changed predictions, takes no batch reply made for the old ones', async () => {
  const server = await batchServer(answering(judgeReply), { pollsPerStatus: 100_000 });
  const preds = join(dir, 'changing.jsonl');
  await writePredictions(ds, preds);
  const out = join(dir, 'changing-judged.jsonl');
  const args = judgeArgs(server.url, preds, out, ['--batch', '--batch-poll', '0.01']);
  const state = `${out}.batches.json`;
  const { child, exited } = startAwb(args);
  await batchPolled(server, state, 2);
  child.kill('SIGKILL');
  await exited;

  // The predictions are made again (another model, the same path) before the batch is collected: 3 rows change.
  const changed = new Set([0, 4, 7]);
  await writePredictions(ds, preds, (r, i) =>
    changed.has(i)
      ? `<predicted_observation>something else ${i}</predicted_observation>`
      : `<predicted_observation>${r.response[r.turn_idx - 1]}</predicted_observation>`,
  );
  server.setPollsPerStatus(1);
  server.online.length = 0;
  const r = await runAwb(args);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 1, 'the same batch, collected');
  assert.equal(server.online.length, changed.size, 'the changed rows are asked online');
  assert.match(
    r.stderr,
    /warning: 3 requests were not in the batches' results \(their rows changed or new since the batch was submitted, .*asked online/,
  );

  const reference = await runAwb(judgeArgs(server.url, preds, join(dir, 'changing-online.jsonl')));
  assert.equal(reference.code, 0, reference.stderr);
  const byKey = (rows: Record<string, unknown>[]) =>
    new Map(rows.map((row) => [`${String(row.task)}|${String(row.id)}|${String(row.turn_idx)}`, judgement(row)]));
  const got = byKey(await judged('changing-judged.jsonl'));
  const want = byKey(await judged('changing-online.jsonl'));
  assert.equal(got.size, N);
  for (const [k, row] of want) {
    const { judge_usage: _u, ...rest } = row;
    const { judge_usage: _v, ...mine } = got.get(k)!;
    assert.deepEqual(mine, rest, k);
  }
});

test('lines that failed, expired or cannot be parsed in the batch are asked online and end right', async () => {
  const good = answering(judgeReply);
  const server = await batchServer((line) => {
    if (line.custom_id !== 'online') {
      if (asked(line, 1)) return { error: 'overloaded' };
      if (asked(line, 2)) return 'expire';
      if (asked(line, 3)) return { status: 200, body: completion(line.body as ChatRequest, 'no verdict here') };
      if (asked(line, 4)) return { status: 500, body: { error: { message: 'internal' } } };
    }
    return good(line);
  });
  const r = await runAwb(judgeArgs(server.url, predictions, join(dir, 'mixed.jsonl'), ['--batch', '--batch-poll', '0.01']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 1);
  assert.equal(server.online.length, 4, 'the four lines without a usable reply, once each');
  const rows = await judged('mixed.jsonl');
  const online = new Map((await judged('online.jsonl')).map((row) => [rowMarker(row as never), row]));
  assert.equal(rows.length, N);
  for (const row of rows) {
    const marker = rowMarker(row as never);
    assert.equal(row.failed, 0, marker);
    assert.equal(row.total_score, online.get(marker)!.total_score, marker);
  }
  const third = rows.find((row) => rowMarker(row as never) === rowMarker(ds.rows[3]!))!;
  assert.equal(third.judge_attempts, 2, 'the unparseable batch reply was the first of --parse-attempts');
  assert.ok(third.judge_batch_usage, 'and its usage is batch usage');
  const second = rows.find((row) => rowMarker(row as never) === rowMarker(ds.rows[2]!))!;
  assert.equal(second.judge_batch_usage, undefined, 'an expired line was not billed');
});

test('above --batch-max-lines the requests are split over several batches', async () => {
  const server = await batchServer(answering(judgeReply));
  const r = await runAwb(
    judgeArgs(server.url, predictions, join(dir, 'split.jsonl'), ['--batch', '--batch-poll', '0.01', '--batch-max-lines', '5']),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 3);
  assert.deepEqual(
    [...server.files.values()].filter((f) => f.purpose === 'batch').map((f) => f.content.trim().split('\n').length),
    [5, 5, 2],
  );
  assert.equal((await manifest('split.jsonl')).batches?.length, 3);
  assert.equal((await judged('split.jsonl')).length, N);
});

test('a request larger than --batch-max-mb: one line naming the row and the option, nothing sent or left behind', async () => {
  const server = await batchServer(answering(judgeReply));
  const sub = await dirs.make();
  const out = join(sub, 'big.jsonl');
  const r = await runAwb(judgeArgs(server.url, predictions, out, ['--batch', '--batch-max-mb', '0.001']));
  assert.equal(r.code, 2, r.stderr);
  assert.equal(errorLines(r.stderr).length, 1, r.stderr);
  assert.match(r.stderr, /\w+ id \d+ turn \d+ .*--batch-max-mb/);
  assert.equal(server.uploads, 0);
  assert.deepEqual(await readdir(sub), [], 'no request file left');
});

test('resuming with --batch batches only the rows not in the output yet', async () => {
  const server = await batchServer(answering(judgeReply));
  const out = join(dir, 'resume.jsonl');
  const first = await runAwb(judgeArgs(server.url, predictions, out, ['--domains', 'mcp,search']));
  assert.equal(first.code, 0, first.stderr);
  const done = (await readRowsOf(out)).length;
  assert.ok(done > 0 && done < N);
  const r = await runAwb(judgeArgs(server.url, predictions, out, ['--batch', '--batch-poll', '0.01', '--force']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(batchLines(server), N - done);
  assert.equal((await readRowsOf(out)).length, N);
});

test('judge --batch in the turing mode and with --repeat: one batch line per request the row sends', async () => {
  const boxed: ReplyFn = (req) => `\\boxed{${lastUserText(req).length % 2 ? 'A' : 'B'}}`;
  const server = await batchServer(answering(boxed));
  const online = await runAwb(judgeArgs(server.url, predictions, join(dir, 'turing-online.jsonl'), ['--mode', 'turing']));
  assert.equal(online.code, 0, online.stderr);
  server.online.length = 0;
  const r = await runAwb(
    judgeArgs(server.url, predictions, join(dir, 'turing.jsonl'), ['--mode', 'turing', '--batch', '--batch-poll', '0.01']),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.online.length, 0);
  assert.equal(batchLines(server), 2 * N);
  const choices = (rows: Record<string, unknown>[]) =>
    rows.map((row) => (row.turing as { orders: Array<{ choice: string }> }).orders.map((o) => o.choice).join('')).sort();
  assert.deepEqual(choices(await judged('turing.jsonl')), choices(await judged('turing-online.jsonl')));

  const grades = await batchServer(answering(judgeReply));
  const rep = await runAwb(
    judgeArgs(grades.url, predictions, join(dir, 'repeat.jsonl'), ['--repeat', '3', '--batch', '--batch-poll', '0.01']),
  );
  assert.equal(rep.code, 0, rep.stderr);
  assert.equal(batchLines(grades), 3 * N);
  assert.equal(grades.online.length, 0);
  const rows = await judged('repeat.jsonl');
  assert.ok(rows.every((row) => (row.judge_repeats as unknown[]).length === 3 && row.failed === 0));
});

test('infer --batch writes the predictions online inference writes, marked as batch usage', async () => {
  const server = await batchServer(answering(worldReply));
  const online = await runAwb(inferArgs(server.url, ds.dir, join(dir, 'pred-online.jsonl')));
  assert.equal(online.code, 0, online.stderr);
  server.online.length = 0;
  const r = await runAwb(inferArgs(server.url, ds.dir, join(dir, 'pred-batch.jsonl'), ['--batch', '--batch-poll', '0.01']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.created, 1);
  assert.equal(server.online.length, 0);
  const strip = (row: Record<string, unknown>) => {
    const { latency_ms: _l, batch_usage: _b, ...rest } = row;
    return rest;
  };
  const a = await readRowsOf(join(dir, 'pred-online.jsonl'));
  const b = await readRowsOf(join(dir, 'pred-batch.jsonl'));
  assert.deepEqual(b.map(strip).sort(byGen), a.map(strip).sort(byGen));
  assert.ok(b.every((row) => JSON.stringify(row.batch_usage) === JSON.stringify(row.usage)));
});

test('an endpoint without the Batch API or refusing the key: one line, exit 3, nothing written', async () => {
  const vllm = await serve({ models: ['test-model'], reply: judgeReply });
  const out = join(dir, 'refused.jsonl');
  const r = await runAwb(judgeArgs(vllm.url, predictions, out, ['--batch']));
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /^awb: batch endpoint http:\/\/127\.0\.0\.1:\d+\/v1 does not offer the Batch API \(404: .*vllm serve` does not: run without --batch$/m,
  );
  assert.equal(vllm.stats.requests, 0, 'nothing asked online either');
  assert.equal((await stat(out).catch(() => undefined))?.size ?? 0, 0);

  const locked = await startBatchServer({ reply: answering(judgeReply), apiKey: 'sk-right-0123456789' });
  servers.push(locked);
  const k = await runAwb([
    ...judgeArgs(locked.url, predictions, join(dir, 'locked.jsonl'), ['--batch', '--no-preflight']),
    '--judge-api-key',
    'sk-wrong-0123456789',
  ]);
  assert.equal(k.code, 3, k.stderr);
  assert.match(k.stderr, /batch endpoint \S+ rejected the API key \(401 Unauthorized\)/);
  assert.doesNotMatch(k.stderr, /sk-wrong/);
});

function byGen(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return String(a.gen) < String(b.gen) ? -1 : 1;
}

test('a batch cancelled at the endpoint while awb waits: its unrun requests go online, and a warning says so with their count', async () => {
  const server = await batchServer(answering(judgeReply), { pollsPerStatus: 1000 });
  const run = startAwb(judgeArgs(server.url, predictions, join(dir, 'cancelled.jsonl'), ['--batch', '--batch-poll', '0.05']));
  for (let i = 0; server.batches.size === 0 && i < 1200; i++) await new Promise((r) => setTimeout(r, 50));
  const [id] = [...server.batches.keys()];
  await fetch(`${server.url}/batches/${id!}/cancel`, { method: 'POST' });
  const r = await run.exited;
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`warning: batch ${id!} cancelled with ${N} of its ${N} requests not run: they are asked online, at the online price`),
  );
  assert.equal(server.online.length, N);
  const rows = await judged('cancelled.jsonl');
  assert.equal(rows.length, N);
  assert.ok(rows.every((row) => row.failed === 0 && row.judge_batch_usage === undefined));
});
