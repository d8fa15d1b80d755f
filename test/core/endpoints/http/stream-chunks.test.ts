import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rawServer, streamDelta as delta, usageEvent } from '../../../support/raw-server.js';
import { collectStream, EndpointPool, medianP90 } from '../../../../src/core/endpoints/index.js';
import { RequestFailed } from '../../../../src/core/endpoints/classify.js';

/* A stream put together into a completion: the chunks as servers and proxies send them. */
test('a stream is put together as the unstreamed reply: every reasoning field, last finish reason, usage chunk', async () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) => ({
    id: 'c1',
    object: 'chat.completion.chunk' as const,
    created: 1,
    model: 'm',
    choices: delta ? [{ index: 0, delta, finish_reason: finish, logprobs: null }] : [],
    ...(usage ? { usage } : {}),
  });
  async function* chunks() {
    yield chunk({ role: 'assistant' });
    yield chunk({ reasoning: 'a' });
    yield chunk({ reasoning: 'b', content: 'x' });
    yield chunk({ content: 'y' }, 'length');
    yield { ...chunk({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } };
  }
  const { completion, ttftMs } = await collectStream(chunks() as never, performance.now());
  const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
  assert.deepEqual(message, { role: 'assistant', content: 'xy', reasoning: 'ab' });
  assert.equal(completion.choices[0]!.finish_reason, 'length');
  assert.deepEqual(completion.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  assert.equal(typeof ttftMs, 'number');
  assert.deepEqual(medianP90([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]), { median: 5, p90: 9 });
  assert.equal(medianP90([]), undefined);
});

/** A streamed pool on `url` that tries once. */
const streamedPool = (url: string) =>
  new EndpointPool({
    urls: [url],
    apiKey: 'k',
    model: 'test-model',
    timeoutMs: 5000,
    idleMs: 2000,
    maxRetries: 0,
    maxReplyBytes: 1 << 20,
    role: 'world model',
    stream: true,
  });

test('events as servers and proxies spell them: CRLF, comments, `data:` without a space, every byte its own TCP write', async () => {
  const events = [
    ': keep-alive',
    delta({ role: 'assistant', reasoning_content: 'th' }).trim(),
    ': ping',
    delta({ reasoning_content: 'ink', content: 'hé' }).trim().replace('data: ', 'data:'),
    delta({ content: '😀 done' }, 'stop').trim(),
    usageEvent.trim(),
    'data:[DONE]',
  ];
  const body = Buffer.from(`${events.join('\r\n\r\n')}\r\n\r\n`);
  const { url } = await rawServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.socket!.setNoDelay(true);
    let i = 0;
    const next = () => (i < body.length ? res.write(body.subarray(i, ++i), () => setImmediate(next)) : res.end());
    next();
  });
  const pool = streamedPool(url);
  const { completion } = await pool.chat(pool.encode({ messages: [{ role: 'user', content: 'x' }] }));
  assert.deepEqual(completion.choices[0]!.message, { role: 'assistant', content: 'hé😀 done', reasoning_content: 'think' });
  assert.equal(completion.choices[0]!.finish_reason, 'stop');
  assert.equal(completion.usage?.total_tokens, 8);
});

for (const [what, sent] of [
  [
    'as SGLang and older vLLM send it',
    'data: {"object": "error", "message": "prompt is too long", "type": "BadRequestError", "code": 400}',
  ],
  ['as an `error` event without the `error` wrapper', 'event: error\ndata: {"message": "prompt is too long"}'],
] as const)
  test(`an error sent in the stream ${what} is the reason given, not "no finish reason" or "no choice"`, async () => {
    for (const before of ['', delta({ role: 'assistant', content: 'half' })]) {
      const { url } = await rawServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`${before}${sent}\n\ndata: [DONE]\n\n`);
      });
      const pool = streamedPool(url);
      const failed = await pool.chat(pool.encode({ messages: [{ role: 'user', content: 'x' }] })).catch((err: unknown) => err);
      assert.ok(failed instanceof RequestFailed, String(failed));
      assert.deepEqual(failed.failure, { kind: 'connection', cause: 'stream-broke' });
      // The server's own reason is what the row records.
      assert.ok(pool.describe(failed).includes('prompt is too long'), pool.describe(failed));
    }
  });
