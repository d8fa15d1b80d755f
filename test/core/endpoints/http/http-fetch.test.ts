import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { EndpointPool, type ChatRequest, type PoolOptions } from '../../../../src/core/endpoints/index.js';
import { RequestFailed } from '../../../../src/core/endpoints/classify.js';

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/** Sends a request through a pool as a stage does: encoded once, then sent. */
const send = (p: EndpointPool, r: ChatRequest) => p.chat(p.encode(r));

const pool = (url: string, over: Partial<PoolOptions> = {}) =>
  new EndpointPool({
    urls: [url],
    apiKey: 'k',
    model: 'm',
    timeoutMs: 10_000,
    maxRetries: 0,
    maxReplyBytes: 1 << 20,
    role: 'world model',
    ...over,
  });
const reply = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
});
const request = { messages: [{ role: 'user' as const, content: 'x'.repeat(3 << 20) }] };

test('a request is encoded once as the JSON sent: the model after its fields, the stream fields with --stream, text as UTF-8', () => {
  const ask: ChatRequest = { temperature: 0.6, messages: [{ role: 'user', content: 'line\u2028終 "q"' }] };
  const plain = pool('http://127.0.0.1:9/v1').encode(ask);
  assert.equal(Buffer.from(plain.json).toString('utf8'), JSON.stringify({ ...ask, model: 'm' }));
  const streamed = JSON.parse(Buffer.from(pool('http://127.0.0.1:9/v1', { stream: true }).encode(ask).json).toString('utf8'));
  assert.deepEqual(streamed, { ...ask, model: 'm', stream: true, stream_options: { include_usage: true } });
  // `stream_options: null` (--extra-body) leaves the field out, streamed or not.
  for (const stream of [true, false]) {
    const bare = JSON.parse(
      Buffer.from(pool('http://127.0.0.1:9/v1', { stream }).encode({ ...ask, stream_options: null }).json).toString('utf8'),
    );
    assert.deepEqual(bare, { ...ask, model: 'm', ...(stream && { stream: true }) });
  }
});

test('the body the client builds arrives whole, with its length, on every attempt', async () => {
  const seen: { length: string | undefined; body: string }[] = [];
  const { url, server } = await serve((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({ length: req.headers['content-length'], body: Buffer.concat(parts).toString() });
      // The first attempt fails with a retryable status; the same body goes again.
      if (seen.length === 1) res.writeHead(503, { 'retry-after-ms': '10' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(reply);
    });
  });
  try {
    const { completion } = await send(pool(url, { maxRetries: 2 }), request);
    assert.equal(completion.choices[0]?.message.content, 'ok');
    assert.equal(seen.length, 2);
    const expected = JSON.stringify({ ...request, model: 'm' });
    for (const s of seen) {
      assert.deepEqual(JSON.parse(s.body), JSON.parse(expected));
      assert.equal(s.length, String(Buffer.byteLength(s.body)));
    }
  } finally {
    server.close();
  }
});

test('a server that answers 413 and hangs up before the body is sent gives that error, not a crash', async () => {
  const { url, server } = await serve((req, res) => {
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end('{"error":{"message":"too large"}}');
    req.socket.destroy();
  });
  try {
    const p = pool(url);
    await assert.rejects(send(p, request), (err: Error) => {
      // Either the 413 arrived before the socket closed, or the write failed: both say what happened, neither is a crash.
      const said = p.describe(err);
      return /^413 too large$|^Connection error: (write |read )?(EPIPE|ECONNRESET|socket hang up)/.test(said) || assert.fail(said);
    });
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
    await assert.rejects(send(pool(url, { timeoutMs: 300 }), { messages: [] }), (err: Error) => /timed out/i.test(err.message));
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a reply larger than --max-reply-mb is a failed attempt with one line, cut off at the limit', async () => {
  let sent = 0;
  const { url, server } = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // An endless reply: it stops only when the client hangs up.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
  });
  try {
    const p = pool(url, { maxReplyBytes: 2 << 20 });
    await assert.rejects(send(p, { messages: [] }), (err: Error) => {
      assert.equal(p.describe(err), 'reply larger than 2 MB (--max-reply-mb)');
      return true;
    });
    assert.ok(sent < 64 << 20, `the server got to send ${sent} bytes`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a reply that stalls after its headers is a failed attempt once the idle limit passes', async () => {
  const { url, server } = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
  });
  try {
    const p = pool(url, { idleMs: 200 });
    await assert.rejects(send(p, { messages: [] }), (err: Error) => {
      assert.equal(p.describe(err), 'reply stalled: no bytes for 0.2 s');
      return true;
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a streamed reply is held to --max-reply-mb as it arrives: an endless stream is a failed attempt, retried', async () => {
  let requests = 0;
  const { url, server } = await serve((req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'y'.repeat(1000) }, finish_reason: null }] })}\n\n`;
    const timer = setInterval(() => res.write(chunk), 1);
    res.on('close', () => clearInterval(timer));
  });
  try {
    await assert.rejects(
      send(pool(url, { stream: true, maxReplyBytes: 64 * 1024, maxRetries: 1 }), { messages: [{ role: 'user', content: 'x' }] }),
      /larger than/,
    );
    assert.equal(requests, 2, 'the failed stream was tried again');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a reply the server compressed unasked (gzip, deflate, br) is read decoded, streamed or not', async () => {
  const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
  const event = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = event({ role: 'assistant', content: 'stre' }, null) + event({ content: 'amed' }, 'stop') + 'data: [DONE]\n\n';
  const { url, server } = await serve((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as { stream?: boolean; messages: { content: string }[] };
      const coding = body.messages[0]!.content as keyof typeof encoders;
      const plain = Buffer.from(body.stream ? events : reply);
      const packed = encoders[coding](plain);
      res.writeHead(200, {
        'content-type': body.stream ? 'text/event-stream' : 'application/json',
        'content-encoding': coding,
        'content-length': packed.length,
      });
      res.end(packed);
    });
  });
  try {
    for (const coding of Object.keys(encoders)) {
      const ask = { messages: [{ role: 'user' as const, content: coding }] };
      const { completion } = await send(pool(url), ask);
      assert.equal(completion.choices[0]?.message.content, 'ok', coding);
      const streamed = await send(pool(url, { stream: true }), ask);
      assert.equal(streamed.completion.choices[0]?.message.content, 'streamed', `${coding}, streamed`);
    }
  } finally {
    server.close();
  }
});

test('a compressed reply is held to --max-reply-mb once unpacked: a small gzip bomb is a failed attempt', async () => {
  // 32 MB of spaces pack into about 32 KB.
  const bomb = gzipSync(Buffer.alloc(32 << 20, 0x20));
  const { url, server } = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
  });
  try {
    assert.ok(bomb.length < 1 << 20);
    const p = pool(url, { maxReplyBytes: 1 << 20 });
    await assert.rejects(send(p, { messages: [] }), (err: Error) => {
      assert.equal(p.describe(err), 'reply larger than 1 MB (--max-reply-mb)');
      return true;
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('a reply declared JSON that is not, or whose compressed body is damaged, is named as such, not as a SyntaxError or a connection error', async () => {
  const { url, server } = await serve((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.includes('damaged')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(Buffer.from('not gzip at all'));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('hello, this is no JSON');
      }
    });
  });
  try {
    const plain = pool(url);
    await assert.rejects(send(plain, { messages: [] }), (err: Error) => {
      assert.ok(err instanceof RequestFailed, String(err));
      assert.deepEqual(err.failure, { kind: 'malformed' });
      return true;
    });
    const damaged = pool(`${url}/damaged`);
    await assert.rejects(send(damaged, { messages: [] }), (err: Error) => {
      assert.ok(err instanceof RequestFailed, String(err));
      assert.deepEqual(err.failure, { kind: 'connection', cause: 'reply-undecodable' });
      return true;
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test(
  'a request given up on closes its connection: a server still generating sees it go, by timeout or by a stop',
  { timeout: 120_000 },
  async () => {
    const closed: Promise<void>[] = [];
    const { url, server } = await serve((req) => {
      req.resume();
      // Never answers, as a server busy with one long generation.
      closed.push(new Promise((r) => req.socket.once('close', () => r())));
    });
    try {
      const timedOut = pool(url, { timeoutMs: 300 });
      await assert.rejects(send(timedOut, { messages: [{ role: 'user', content: 'x' }] }));
      const stopped = pool(url);
      const stop = new AbortController();
      const asked = stopped.chat(stopped.encode({ messages: [{ role: 'user', content: 'x' }] }), stop.signal);
      while (closed.length < 2) await new Promise((r) => setTimeout(r, 10));
      stop.abort();
      await assert.rejects(asked);
      // Each close arrives, or the test fails at its timeout: the connection was left open.
      await Promise.all(closed);
      assert.equal(closed.length, 2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  },
);
