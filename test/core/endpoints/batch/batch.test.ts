import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { BATCH_LIMITS, fitsInBatch, type BatchRequest } from '../../../../src/core/endpoints/batch/batch-files.js';
import { clearBatches, customIdOf, runBatches, type BatchResults } from '../../../../src/core/endpoints/batch/batch.js';
import { isFault } from '../../../support/fault-kind.js';
import type { ChatResult } from '../../../../src/core/endpoints/index.js';
import { batchFirst } from '../../../../src/core/runner/batch-phase.js';
import { readManifest } from '../../../../src/core/output/index.js';
import { startBatchServer, type BatchLine, type BatchServer } from '../../../support/batch-server.js';

const completion = (text: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'judge',
  choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
});

const echo = (line: BatchLine) => ({ status: 200, body: completion(`reply to ${line.body.messages.at(-1)!.content}`) });

async function* requests(n: number): AsyncGenerator<BatchRequest> {
  for (let i = 0; i < n; i++)
    yield { customId: customIdOf(`row-${i}`), what: `row ${i}`, body: { model: 'judge', messages: [{ role: 'user', content: `q${i}` }] } };
}

describe('batch limits', () => {
  it('starts a new file at the line limit and at the byte limit, never leaving a file empty', () => {
    const limits = { maxLines: 3, maxBytes: 100 };
    assert.equal(fitsInBatch(0, 0, 500, limits), true);
    assert.equal(fitsInBatch(2, 10, 10, limits), true);
    assert.equal(fitsInBatch(3, 10, 10, limits), false);
    assert.equal(fitsInBatch(1, 95, 10, limits), false);
    assert.equal(fitsInBatch(1, 90, 10, limits), true);
    assert.deepEqual(BATCH_LIMITS, { maxLines: 50_000, maxBytes: 200_000_000 });
  });

  it('custom ids are stable and distinct per row key', () => {
    assert.equal(customIdOf('a:1:1:x'), customIdOf('a:1:1:x'));
    assert.notEqual(customIdOf('a:1:1:x'), customIdOf('a:1:2:x'));
  });
});

describe('runBatches against a local Batch API', () => {
  let dir: string;
  let server: BatchServer;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'awb-batch-'));
  });
  // Every run's results, closed after its test as a caller does: an open results file would be closed by the garbage collector, with a warning.
  let opened: BatchResults[] = [];
  afterEach(async () => {
    await Promise.all(opened.map((r) => r.close()));
    opened = [];
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const client = () => new OpenAI({ baseURL: server.url, apiKey: 'sk-test-key', maxRetries: 0 });
  const run = (n: number, extra: Partial<Parameters<typeof runBatches>[0]> = {}) =>
    runBatches({
      client: client(),
      endpoint: server.url,
      model: 'judge',
      statePath: join(dir, 'judged.jsonl.batches.json'),
      filePrefix: join(dir, 'judged.jsonl.batch'),
      requests: () => requests(n),
      pollMs: 5,
      ...extra,
    }).then((results) => {
      opened.push(results);
      return results;
    });

  it('uploads one file, creates one batch, and matches results out of order by custom_id', async () => {
    server = await startBatchServer({ reply: echo, apiKey: 'sk-test-key' });
    const statuses: string[] = [];
    const results = await run(20, { onStatus: (s) => statuses.push(s.status) });
    assert.equal(server.uploads, 1);
    assert.equal(server.created, 1);
    assert.equal(results.size, 20);
    assert.equal(results.ids.length, 1);
    for (let i = 0; i < 20; i++) {
      const r = await results.get(customIdOf(`row-${i}`));
      assert.ok(r?.ok);
      assert.equal((r.body as ReturnType<typeof completion>).choices[0]!.message.content, `reply to q${i}`);
    }
    assert.deepEqual(statuses, ['validating', 'in_progress', 'finalizing', 'completed']);
    const uploaded = [...server.files.values()].find((f) => f.purpose === 'batch')!;
    const first = JSON.parse(uploaded.content.split('\n')[0]!);
    assert.deepEqual(Object.keys(first), ['custom_id', 'method', 'url', 'body']);
    assert.equal(first.url, '/v1/chat/completions');
  });

  it('a results line that cannot be read leaves only its request without a result; a results file removed is downloaded again', async () => {
    server = await startBatchServer({ reply: echo });
    await (await run(5)).close();
    const state = JSON.parse(await readFile(join(dir, 'judged.jsonl.batches.json'), 'utf8')) as { batches: { results: string }[] };
    const file = state.batches[0]!.results;
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const cut = (JSON.parse(lines[1]!) as { custom_id: string }).custom_id;
    await writeFile(file, [lines[0], lines[1]!.slice(0, 20), ...lines.slice(2)].join('\n') + '\n');
    const damaged = await run(5);
    assert.equal(damaged.size, 4);
    assert.equal(await damaged.get(cut), undefined, 'asked online by the caller');
    await damaged.close();
    // Nothing readable at all: one line that says how to fetch it again.
    await writeFile(file, '<html>502</html>\n');
    await assert.rejects(run(5), isFault('batch-results-unreadable', { path: file, line: 1 }));
    await rm(file);
    const again = await run(5);
    assert.equal(again.size, 5);
    assert.ok((await again.get(cut))?.ok);
    await again.close();
    assert.equal(server.created, 1, 'the same batch, its results downloaded again');
  });

  it('splits the requests over several files above the line limit', async () => {
    server = await startBatchServer({ reply: echo });
    const results = await run(7, { limits: { maxLines: 3, maxBytes: 1e6 } });
    assert.equal(server.created, 3);
    assert.equal(results.size, 7);
  });

  it('submits every batch before waiting for any, so several batches run side by side', async () => {
    server = await startBatchServer({ reply: echo, pollsPerStatus: 2 });
    const statusesWhenRecorded: string[][] = [];
    const results = await run(7, {
      limits: { maxLines: 3, maxBytes: 1e6 },
      onRecorded: () => statusesWhenRecorded.push([...server.batches.values()].map((b) => b.status)),
    });
    assert.equal(results.size, 7);
    // Waiting for one batch before submitting the next would make N batches take up to N x 24 h.
    assert.deepEqual(statusesWhenRecorded, [['validating'], ['validating', 'validating'], ['validating', 'validating', 'validating']]);
  });

  it('a killed run, re-run, goes back to the same batch and never submits twice', async () => {
    server = await startBatchServer({ reply: echo, pollsPerStatus: 3 });
    const kill = new AbortController();
    await assert.rejects(run(5, { signal: kill.signal, onRecorded: () => kill.abort() }));
    assert.equal(server.created, 1);
    const results = await run(5);
    assert.equal(server.created, 1);
    assert.equal(server.uploads, 1);
    assert.equal(results.size, 5);
  });

  it('a batch created but not recorded before a kill is found again by its input file', async () => {
    server = await startBatchServer({ reply: echo });
    const statePath = join(dir, 'judged.jsonl.batches.json');
    await run(4, { onRecorded: () => undefined });
    // Forget the batch id, as if the process died between creating the batch and saving its id.
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    delete state.batches[0].id;
    delete state.batches[0].results;
    await writeFile(statePath, JSON.stringify(state));
    const results = await run(4);
    assert.equal(server.created, 1);
    assert.equal(results.size, 4);
  });

  it('failed and expired lines come back as failures or not at all, so the caller can send them again', async () => {
    server = await startBatchServer({
      reply: (line) => {
        const q = line.body.messages.at(-1)!.content;
        if (q === 'q1') return { error: 'overloaded' };
        if (q === 'q2') return { status: 500, body: { error: { message: 'internal sk-test-key-0123456789' } } };
        if (q === 'q3') return 'expire';
        return echo(line);
      },
    });
    const results = await run(5);
    assert.equal((await results.get(customIdOf('row-0')))?.ok, true);
    for (const failed of ['row-1', 'row-2', 'row-3']) assert.deepEqual(await results.get(customIdOf(failed)), { ok: false }, failed);
    assert.equal(await results.get(customIdOf('nope')), undefined);
  });

  it('error lines as other Batch APIs write them (a numeric code, a text error, a status without a body) are failures, not a refused file', async () => {
    const spellings: object[] = [
      { response: null, error: { code: 400, message: 'prompt too long' } },
      { error: 'upstream timed out' },
      { response: { status_code: 400, request_id: 'r' }, error: { object: 'error', message: 'bad', code: 400 } },
      { id: 'x', response: { status_code: 429, body: { error: { message: 'slow down' } } }, error: null },
    ];
    server = await startBatchServer({
      reply: (line) => {
        const i = Number(line.body.messages.at(-1)!.content.slice(1));
        return i < spellings.length ? { errorLine: spellings[i]! } : echo(line);
      },
    });
    const results = await run(spellings.length + 1);
    for (let i = 0; i < spellings.length; i++) assert.deepEqual(await results.get(customIdOf(`row-${i}`)), { ok: false }, `row ${i}`);
    assert.equal((await results.get(customIdOf(`row-${spellings.length}`)))?.ok, true);
    await results.close();
  });

  it(
    'keeps each results file open across lookups, one handle per file, and closes them at close',
    { skip: process.platform !== 'linux' },
    async () => {
      server = await startBatchServer({ reply: echo });
      const results = await run(6, { limits: { maxLines: 3, maxBytes: 1e6 } });
      const real = await realpath(dir);
      const openResults = async () => {
        const fds = await readdir('/proc/self/fd');
        const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
        return targets.filter((t) => t.startsWith(real) && t.endsWith('.results.jsonl')).sort();
      };
      const lookups = () => Promise.all(Array.from({ length: 6 }, (_, i) => results.get(customIdOf(`row-${i}`))));
      assert.ok((await lookups()).every((r) => r?.ok));
      assert.ok((await lookups()).every((r) => r?.ok));
      assert.deepEqual(await openResults(), [
        join(real, 'judged.jsonl.batch-1.results.jsonl'),
        join(real, 'judged.jsonl.batch-2.results.jsonl'),
      ]);
      await results.close();
      assert.deepEqual(await openResults(), []);
      await assert.rejects(results.get(customIdOf('row-0')), /closed/);
      await results.close();
    },
  );

  it('a batch that fails as a whole is one clear error (exit 3), and the next run submits its file again', async () => {
    server = await startBatchServer({ reply: echo, failValidation: 'model not found' });
    await assert.rejects(run(2), isFault('batch-failed-whole', { lines: 2, why: 'line 1: model not found' }));
    const state = JSON.parse(await readFile(join(dir, 'judged.jsonl.batches.json'), 'utf8'));
    assert.equal(state.batches[0].id, undefined, 'the failed batch is forgotten');
    assert.equal(state.batches[0].lines, 2, 'its request file is kept');
  });

  it('an endpoint without the Batch API, a rejected key and results that are not JSONL are one line each, exit 3', async () => {
    server = await startBatchServer({ reply: echo, apiKey: 'sk-other' });
    await assert.rejects(run(2), isFault('key-rejected', { role: 'batch' }));
    await server.close();
    server = await startBatchServer({ reply: echo, garbledResults: '<html>502 Bad Gateway</html>\n' });
    await rm(join(dir, 'judged.jsonl.batches.json'));
    await assert.rejects(run(2), isFault('batch-results-unreadable', { line: 1 }));
  });

  it('a recorded batch the endpoint no longer knows (404): one line naming it and the state file, not "no Batch API"', async () => {
    server = await startBatchServer({ reply: echo, pollsPerStatus: 50 });
    const kill = new AbortController();
    await assert.rejects(run(2, { signal: kill.signal, onRecorded: () => kill.abort() }));
    // Made with another key's project, or removed at the endpoint, which still serves the Batch API.
    const [id] = [...server.batches.keys()];
    server.batches.clear();
    await assert.rejects(run(2), isFault('batch-not-found', { id: id!, path: join(dir, 'judged.jsonl.batches.json') }));
  });

  it('refuses to resume batches made for another model', async () => {
    server = await startBatchServer({ reply: echo, pollsPerStatus: 50 });
    const kill = new AbortController();
    await assert.rejects(run(2, { signal: kill.signal, onRecorded: () => kill.abort() }));
    await assert.rejects(
      run(2, { model: 'other' }),
      isFault('batch-state-elsewhere', { recorded: { model: 'judge', endpoint: server.url } }),
    );
  });

  it('clearBatches removes the state and every batch file', async () => {
    server = await startBatchServer({ reply: echo });
    await run(3);
    assert.ok((await readdir(dir)).length >= 3);
    await clearBatches(join(dir, 'judged.jsonl.batches.json'));
    assert.deepEqual(await readdir(dir), []);
    await assert.rejects(stat(join(dir, 'judged.jsonl.batches.json')));
  });
});

describe('batchFirst: a row asks through the batch first', () => {
  it('answers each request number from the batch once, when the batch holds a reply for it; the rest go online', async () => {
    const reply = (endpoint: string): ChatResult => ({ completion: completion(endpoint) as never, endpoint, latencyMs: 0 });
    const inBatch = new Map([
      [0, reply('batch 0')],
      [2, reply('batch 2')],
    ]);
    const lookedUp: number[] = [];
    const chat = batchFirst(
      async (n) => {
        lookedUp.push(n);
        return inBatch.get(n);
      },
      async (n) => reply(`online ${n}`),
    );
    const signal = new AbortController().signal;
    const got: string[] = [];
    for (const n of [0, 0, 1, 2, 1, 2, 0]) got.push((await chat(n, { json: new Uint8Array() }, signal)).endpoint);
    assert.deepEqual(got, ['batch 0', 'online 0', 'online 1', 'batch 2', 'online 1', 'online 2', 'online 0']);
    assert.deepEqual(lookedUp, [0, 1, 2], 'each request number is looked up in the batch once');
  });
});

describe('the files kept beside an output: batch state and manifest (readJsonFile)', () => {
  it('none is undefined; a file that is not JSON, breaks its format or cannot be read is one line naming it, with what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-json-'));
    try {
      const out = join(dir, 'judged.jsonl');
      const state = join(dir, 'judged.jsonl.batches.json');
      assert.equal(await readManifest(out), undefined);
      await clearBatches(state);
      await writeFile(state, '{"format": ');
      await assert.rejects(clearBatches(state), isFault('json-file-not-json', { path: state, use: 'batch-state' }));
      await writeFile(
        state,
        '{"format": "agentworldbench-batches", "version": 1, "endpoint": "x", "model": "m", "batches": [{"file": 3}]}',
      );
      await assert.rejects(clearBatches(state), isFault('json-file-invalid', { field: 'batches.0.file' }));
      await writeFile(state, '[]');
      await assert.rejects(clearBatches(state), isFault('json-file-invalid', { field: '' }));
      await writeFile(join(dir, 'judged.jsonl.manifest.json'), 'nope');
      await assert.rejects(readManifest(out), isFault('json-file-not-json', { use: 'resume' }));
      await writeFile(join(dir, 'judged.jsonl.manifest.json'), '{}');
      await assert.rejects(readManifest(out), isFault('json-file-invalid', { use: 'resume' }));
      await rm(state);
      await mkdir(state);
      await assert.rejects(clearBatches(state), isFault('file-error', { path: state, code: 'EISDIR' }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
