/*
 * `--max-retries N` means at most N + 1 attempts per request, whatever went wrong, streamed or
 * not: a malformed 200 (empty, a web page, cut JSON, no choices) is one more kind of failure,
 * retried by the pool within the same count, never asked again on top of it by infer or judge.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EndpointPool } from '../../../src/core/endpoints/index.js';
import { runAwb } from '../../support/cli.js';
import { makeDataset, readRowsOf, tempDirs, writePredictions } from '../../support/dataset.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { chatServer, json, rawServer } from '../../support/raw-server.js';

const dirs = tempDirs('retry-count');
after(() => dirs.cleanup());

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

type Fault = (res: ServerResponse, req: IncomingMessage) => void;
const ok200 =
  (body: string, type = 'application/json'): Fault =>
  (res) =>
    res.writeHead(200, { 'content-type': type }).end(body);
const completion = (choices: unknown[]) => JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'test-model', choices });

/** Every kind of failed attempt, as a server gives it to a streamed and to an unstreamed request alike. */
const FAULTS: Record<string, Fault> = {
  'a connection reset': (_res, req) => req.socket.destroy(),
  'a timeout': () => {},
  'a 500': (res) => json(res, 500, { error: { message: 'boom' } }),
  'a 429 with Retry-After': (res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { message: 'slow down' } }));
  },
  'a 200 with an empty body': ok200(''),
  'a 200 with an empty body and no type': (res) => res.writeHead(200).end(),
  'a 200 with a web page': ok200('<!doctype html><html><body>Sign in</body></html>', 'text/html'),
  'a 200 with JSON cut short': ok200('{"id": "x", "choi'),
  'a 200 with no choices': ok200(completion([])),
};

/** Faults only a stream has. */
const STREAM_FAULTS: Record<string, Fault> = {
  'a stream cut before its finish reason': ok200(chunk({ role: 'assistant', content: 'half an ans' }), 'text/event-stream'),
  'a stream that stalls before its finish reason': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'half' }));
  },
  'an error event in the stream': ok200(
    `${chunk({ role: 'assistant', content: 'half' })}event: error\ndata: {"error": {"message": "engine died"}}\n\n`,
    'text/event-stream',
  ),
  'a stream of events without a choice': ok200(
    `data: {"id": "x", "object": "chat.completion.chunk", "choices": []}\n\ndata: [DONE]\n\n`,
    'text/event-stream',
  ),
};

describe('--max-retries N: N + 1 attempts for every kind of failure', { concurrency: 8 }, () => {
  for (const stream of [false, true])
    for (const [what, fault] of Object.entries({ ...FAULTS, ...(stream ? STREAM_FAULTS : {}) }))
      it(`${stream ? 'streamed' : 'unstreamed'}: ${what} is sent twice with maxRetries 1, then fails`, async () => {
        const { url, seen } = await rawServer((req, res) => {
          req.resume();
          fault(res, req);
        });
        const pool = new EndpointPool({
          urls: [url],
          apiKey: 'k',
          model: 'test-model',
          timeoutMs: 1000,
          idleMs: 300,
          maxRetries: 1,
          maxReplyBytes: 1 << 20,
          role: 'world model',
          stream,
        });
        await assert.rejects(pool.chat(pool.encode({ messages: [{ role: 'user', content: 'hi' }] })));
        assert.deepEqual(seen, ['POST /v1/chat/completions', 'POST /v1/chat/completions']);
        assert.deepEqual(pool.stats()[url], { requests: 2, failures: 2 });
      });
});

describe('infer and judge send a malformed reply at most --max-retries + 1 times per request', { concurrency: 2 }, () => {
  for (const stream of [false, true])
    it(`${stream ? 'with' : 'without'} --stream: a web page for every answer is asked twice with --max-retries 1, not three times`, async () => {
      const dir = await dirs.make();
      const ds = await makeDataset(dir, 2, ['mcp']);
      const { url, seen } = await chatServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>');
      });
      const posts = () => seen.filter((s) => s.startsWith('POST')).length;
      const flags = ['--max-retries', '1', ...(stream ? ['--stream'] : [])];
      const r = await runAwb(inferArgs(url, ds.dir, join(dir, 'p.jsonl'), flags));
      assert.equal(r.code, 1, r.stderr);
      const rows = await readRowsOf(join(dir, 'p.jsonl'));
      assert.equal(rows.length, 2);
      assert.ok(rows.every((row) => row.gen === '' && typeof row.error === 'string'));
      assert.equal(posts(), 4);

      const preds = join(dir, 'pred.jsonl');
      await writePredictions(ds, preds);
      const j = await runAwb(judgeArgs(url, preds, join(dir, 'j.jsonl'), flags));
      assert.equal(j.code, 1, j.stderr);
      const judged = await readRowsOf(join(dir, 'j.jsonl'));
      assert.equal(judged.length, 2);
      assert.ok(judged.every((row) => row.judge_attempts === 1));
      assert.equal(posts(), 8, 'each judge request twice, whatever --parse-attempts');
    });
});
