import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, readRowsOf, synthRows, tempDirs, worldReply, writeDataset } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { requestHash, type ChatRequest } from '../../support/openai-server.js';
import { chatServer, streamDelta as delta, usageEvent } from '../../support/raw-server.js';

/* --stream: the same rows as unstreamed, through a proxy that cuts connections silent for 1.5 s. */

const serve = useServers();
const dirs = tempDirs('stream');
after(() => dirs.cleanup());

/** A TCP proxy to `port` that drops a connection when no byte has passed either way for `idleMs`, as nginx or a gateway does. */
async function idleCuttingProxy(port: number, idleMs: number) {
  const sockets = new Set<Socket>();
  let cuts = 0;
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let timer: NodeJS.Timeout;
    let passed = 0;
    const quiet = () => {
      const at = ++passed;
      clearTimeout(timer);
      // Decided after the next poll for bytes: a loop held up by a loaded machine runs overdue timers before it reads
      // the bytes that came meanwhile, which would pass for silence.
      timer = setTimeout(
        () =>
          setImmediate(() => {
            if (passed !== at) return;
            cuts++;
            client.destroy();
            upstream.destroy();
          }),
        idleMs,
      );
    };
    quiet();
    client.on('data', quiet).pipe(upstream);
    upstream.on('data', quiet).pipe(client);
    const end = () => {
      clearTimeout(timer);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, cuts: () => cuts };
}

const portOf = (url: string) => Number(new URL(url).port);

/** Rows are written as they finish, so two runs' files are compared as sets of their stable fields. */
const sameRows = (rows: Record<string, unknown>[]): string[] => rows.map(stable).sort();

/** A row without what differs between runs by nature: timings and the endpoint's address. */
function stable(row: Record<string, unknown>): string {
  const out = { ...row };
  for (const k of [
    'latency_ms',
    'ttft_ms',
    'decode_tokens_per_s',
    'endpoint',
    'judge_latency_ms',
    'judge_ttft_ms',
    'judge_decode_tokens_per_s',
    'judge_endpoint',
  ])
    delete out[k];
  return JSON.stringify(out);
}

const GENERATION_MS = 3000;

test('infer and judge --stream complete through an idle-cutting proxy with the rows of unstreamed runs; unstreamed fails there', async () => {
  const dir = await dirs.make();
  // First turns only: the rows of one trajectory go one after another, each wave a whole generation long.
  const data = await writeDataset(
    join(dir, 'data'),
    synthRows(10, ['mcp', 'terminal']).filter((r) => r.turn_idx === 1),
  );
  const world = await serve({
    latencyMs: GENERATION_MS,
    reply: (req: ChatRequest, ctx) => ({ content: worldReply(req, ctx) as string, reasoning_content: `thinking ${requestHash(req)}` }),
  });
  const judge = await serve({ latencyMs: GENERATION_MS, reply: judgeReply });
  const worldProxy = await idleCuttingProxy(portOf(world.url), 1500);
  const judgeProxy = await idleCuttingProxy(portOf(judge.url), 1500);
  const out = (n: string) => join(dir, n);

  const [plain, streamed, cut] = await Promise.all([
    runAwb(inferArgs(world.url, data.dir, out('plain.jsonl'), ['-c', '8'])),
    runAwb(inferArgs(worldProxy.url, data.dir, out('streamed.jsonl'), ['-c', '8', '--stream'])),
    runAwb(inferArgs(worldProxy.url, data.dir, out('cut.jsonl'), ['-c', '8', '--max-retries', '0'])),
  ]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(streamed.code, 0, streamed.stderr);
  assert.equal(cut.code, 1, 'unstreamed, every generation outlasts the proxy idle limit');
  assert.ok(worldProxy.cuts() > 0);
  const plainRows = await readRowsOf(out('plain.jsonl'));
  const streamedRows = await readRowsOf(out('streamed.jsonl'));
  assert.equal(plainRows.length, 6);
  assert.ok(plainRows.every((r) => typeof r.gen_reasoning === 'string' && r.usage));
  assert.deepEqual(sameRows(streamedRows), sameRows(plainRows));
  for (const r of streamedRows) {
    assert.equal(typeof r.ttft_ms, 'number');
    assert.ok((r.ttft_ms as number) < GENERATION_MS, 'the first token comes before the generation ends');
    assert.ok((r.decode_tokens_per_s as number) > 0);
    assert.equal(r.error, undefined);
  }
  assert.ok(plainRows.every((r) => r.ttft_ms === undefined));
  assert.match(streamed.stderr, /time to first token: median \d+ ms, p90 \d+ ms \(6 rows\)/);
  assert.match(streamed.stderr, /decode speed: median [\d.]+ tokens\/s/);
  assert.ok((await readRowsOf(out('cut.jsonl'))).every((r) => r.gen === '' && typeof r.error === 'string'));

  const [plainJudged, streamedJudged] = await Promise.all([
    runAwb(judgeArgs(judge.url, out('plain.jsonl'), out('plain-judged.jsonl'), ['-c', '8'])),
    runAwb(judgeArgs(judgeProxy.url, out('plain.jsonl'), out('streamed-judged.jsonl'), ['-c', '8', '--stream'])),
  ]);
  assert.equal(plainJudged.code, 0, plainJudged.stderr);
  assert.equal(streamedJudged.code, 0, streamedJudged.stderr);
  const a = await readRowsOf(out('plain-judged.jsonl'));
  const b = await readRowsOf(out('streamed-judged.jsonl'));
  assert.deepEqual(sameRows(b), sameRows(a));
  assert.ok(b.every((r) => r.failed === 0 && typeof r.judge_ttft_ms === 'number'));
});

test('a stream silent for --stream-idle is a failed attempt, retried, and nothing partial is written', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 2, ['mcp']);
  // Eight pieces over 4 s: half a second between chunks, longer than the idle limit.
  const world = await serve({ latencyMs: 4000, reply: worldReply });
  const r = await runAwb(inferArgs(world.url, data.dir, join(dir, 'p.jsonl'), ['--stream', '--stream-idle', '0.2', '--max-retries', '1']));
  assert.equal(r.code, 1, r.stderr);
  const rows = await readRowsOf(join(dir, 'p.jsonl'));
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.equal(row.gen, '');
    assert.match(String(row.error), /stream broke off: .*stalled/);
  }
  assert.equal(world.stats.requests, 4, `each row tried twice: ${JSON.stringify(rows.map((x) => x.error))}`);
});

test('a stream that ends before its finish reason (no [DONE]) is a failed attempt, retried, and its part is never written', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 2, ['mcp']);
  const { url, seen } = await chatServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const delta = { role: 'assistant', content: 'half an ans' };
    // A proxy that closes the stream cleanly in the middle of the generation.
    res.end(
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
    );
  });
  const out = join(dir, 'cut.jsonl');
  const r = await runAwb(inferArgs(url, data.dir, out, ['--stream', '--max-retries', '1']));
  assert.equal(r.code, 1, r.stderr);
  const rows = await readRowsOf(out);
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.equal(row.gen, '');
    assert.match(String(row.error), /stream broke off: .*no finish reason/);
  }
  assert.equal(seen.filter((s) => s.startsWith('POST')).length, 4, 'each row tried twice');
});

for (const [field, delta, finish] of [
  ['finish_reason', { role: 'assistant', content: 'an answer' }, 7],
  ['content', { role: 'assistant', content: 5 }, 'stop'],
] as const)
  test(`a streamed choice whose ${field} is not text is refused as such, as unstreamed, not as a stream without a choice`, async () => {
    const dir = await dirs.make();
    const data = await makeDataset(dir, 1, ['mcp']);
    const { url } = await chatServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const choice = { index: 0, delta, finish_reason: finish };
      res.end(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [choice] })}\n\ndata: [DONE]\n\n`,
      );
    });
    const out = join(dir, 'odd.jsonl');
    const r = await runAwb(inferArgs(url, data.dir, out, ['--stream', '--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.gen, '');
    assert.match(String(rows[0]!.error), new RegExp(`returned a choice whose ${field} is not text`));
    assert.doesNotMatch(r.stderr, /no choice in its stream|\n\s+at /);
  });

test('a stream that stalls or breaks after its finish reason keeps its answer, without usage, sent once, and the run says so', async () => {
  const dir = await dirs.make();
  // Three first turns, sent at once: the two streams owing their usage wait out their grace together.
  const data = await writeDataset(
    join(dir, 'data'),
    synthRows(6, ['mcp']).filter((r) => r.turn_idx === 1),
  );
  let posts = 0;
  const { url } = await chatServer((req, res) => {
    const n = ++posts;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(delta({ role: 'assistant', content: 'the ' }) + delta({ content: 'answer' }) + delta({}, 'stop'));
    // First: silent for good before the usage chunk; second: the connection reset there; third: silent after usage, before [DONE].
    if (n === 2) setTimeout(() => res.socket?.destroy(), 50);
    if (n === 3) res.write(usageEvent);
  });
  const out = join(dir, 'tail.jsonl');
  // An idle limit above the grace: the answer is kept once the grace is over, not when the stream is given up on.
  const r = await runAwb(inferArgs(url, data.dir, out, ['--stream', '--stream-idle', '8', '--max-retries', '0', '-c', '3']));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(posts, 3, 'no answer was asked for again');
  const rows = await readRowsOf(out);
  assert.equal(rows.length, 3);
  for (const row of rows) {
    assert.equal(row.gen, 'the answer');
    assert.equal(row.finish_reason, 'stop');
    assert.equal(row.error, undefined);
  }
  assert.equal(rows.filter((row) => row.usage === null).length, 2);
  assert.equal(rows.filter((row) => (row.usage as { total_tokens?: number } | null)?.total_tokens === 8).length, 1);
  assert.match(
    r.stderr,
    /warning: 2 streams stalled or broke after the finish reason, before the usage chunk: their answers were kept, without token usage/,
  );
});

test('behind a proxy that buffers the events (the reply in one piece), no decode speed is recorded; the time to first token is', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 2, ['mcp']);
  const { url } = await chatServer((req, res) => {
    const events = ['one ', 'two ', 'three'].map((content) => delta({ content })).join('');
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${delta({ role: 'assistant', content: '' })}${events}${delta({}, 'stop')}${usageEvent}data: [DONE]\n\n`);
    }, 200);
  });
  const out = join(dir, 'buffered.jsonl');
  const r = await runAwb(inferArgs(url, data.dir, out, ['--stream']));
  assert.equal(r.code, 0, r.stderr);
  const rows = await readRowsOf(out);
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.equal(row.gen, 'one two three');
    assert.equal(typeof row.ttft_ms, 'number');
    assert.equal(row.decode_tokens_per_s, undefined);
  }
  assert.doesNotMatch(r.stderr, /decode speed/);
  assert.match(r.stderr, /time to first token/);
});

test('a stream whose first delta carries an empty reasoning_content and its thinking in `reasoning` keeps the thinking', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 1, ['mcp']);
  const { url } = await chatServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const thinking =
      delta({ role: 'assistant', content: '', reasoning_content: '' }) + delta({ reasoning: 'let me ' }) + delta({ reasoning: 'think' });
    res.end(`${thinking}${delta({ content: 'answer' }, 'stop')}${usageEvent}data: [DONE]\n\n`);
  });
  const out = join(dir, 'reasoning.jsonl');
  const r = await runAwb(inferArgs(url, data.dir, out, ['--stream']));
  assert.equal(r.code, 0, r.stderr);
  const [row] = await readRowsOf(out);
  assert.equal(row!.gen, 'answer');
  assert.equal(row!.gen_reasoning, 'let me think');
});
