/*
 * `--max-retries N` means at most N + 1 attempts per request, whatever went wrong, streamed or
 * not: a malformed 200 (empty, a web page, cut JSON, no choices) is one more kind of failure,
 * retried by the pool within the same count, never asked again on top of it by infer or judge.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { EndpointPool } from '../../../src/core/endpoints/index.js';
import { json, rawServer, streamDelta as chunk } from '../../support/raw-server.js';

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
          // Only the timeout's own case is decided by a timer; elsewhere it only bounds a hang, so an attempt slowed by
          // a loaded machine is not cut before the server sees it.
          timeoutMs: what === 'a timeout' ? 2000 : 60_000,
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
