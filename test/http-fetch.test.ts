import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EndpointPool } from '../src/core/endpoints/endpoints.js';
import { BodyPlan } from '../src/core/endpoints/request-body.js';

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

const pool = (url: string, maxRetries = 0) =>
  new EndpointPool({ urls: [url], apiKey: 'k', model: 'm', timeoutMs: 10_000, maxRetries, role: 'world model' });
const reply = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
});

test('a planned body arrives whole, with its length, on every attempt', async () => {
  const big = Buffer.alloc(3 << 20, 0x61);
  const plan = new BodyPlan([Buffer.from('{"model":"m","x":"'), big, Buffer.from('"}')]);
  const seen: { length: string | undefined; chunked: boolean; bytes: number }[] = [];
  const { url, server } = await serve((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({
        length: req.headers['content-length'],
        chunked: req.headers['transfer-encoding'] === 'chunked',
        bytes: Buffer.concat(parts).length,
      });
      // The first attempt fails with a retryable status; the client sends the same body again.
      if (seen.length === 1) res.writeHead(503, { 'retry-after-ms': '10' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
    });
  });
  try {
    const { completion } = await pool(url, 2).chat(plan);
    assert.equal(completion.choices[0]?.message.content, 'ok');
    assert.deepEqual(seen, [
      { length: String(plan.length), chunked: false, bytes: plan.length },
      { length: String(plan.length), chunked: false, bytes: plan.length },
    ]);
  } finally {
    server.close();
  }
});

test('a server that answers and hangs up before the body is sent gives an error, not a crash', async () => {
  const plan = new BodyPlan([Buffer.alloc(8 << 20, 0x62)]);
  const { url, server } = await serve((req, res) => {
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end('{"error":{"message":"too large"}}');
    req.socket.destroy();
  });
  try {
    await assert.rejects(pool(url).chat(plan), (err: Error) =>
      /413|too large|Connection error|socket|ECONNRESET|EPIPE/i.test(`${err.message} ${String((err as { cause?: unknown }).cause)}`),
    );
  } finally {
    server.close();
  }
});

test('a reply that outlasts the timeout while its body is arriving counts as a timeout, not a dropped connection', async () => {
  const { url, server } = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x",'); // the rest never comes
    });
  });
  try {
    const slow = new EndpointPool({ urls: [url], apiKey: 'k', model: 'm', timeoutMs: 300, maxRetries: 0, role: 'world model' });
    await assert.rejects(slow.chat(new BodyPlan([Buffer.from('{}')])), (err: Error) => /timed out/i.test(err.message));
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
