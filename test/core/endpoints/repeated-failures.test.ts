/*
 * Failures that retries would only repeat stop the run: the same 500 for attempt after attempt before
 * any answer (a parameter or model name the server chokes on), or connections cut the same way (a proxy's
 * idle limit). Failures that differ, heal (502) or follow answers (a 500 the row's own) do not.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { EndpointPool } from '../../../src/core/endpoints/index.js';
import { SAME_REFUSALS, afterRefusal, failuresRepeated, type RefusalStreak } from '../../../src/core/endpoints/retry.js';
import { isFault } from '../../support/fault-kind.js';
import { json, rawServer } from '../../support/raw-server.js';

const answer = (res: ServerResponse) =>
  json(res, 200, {
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  });

/** A failed reply asking for a retry after 1 ms, as OpenAI's `retry-after-ms` does: the tests count attempts, not wait out backoff. */
const failed = (res: ServerResponse, status: number, message: string, type?: string) => {
  res.setHeader('retry-after-ms', '1');
  json(res, status, { error: { message, ...(type && { type }) } });
};

async function poolOn(reply: (req: IncomingMessage, res: ServerResponse, n: number) => void, maxRetries: number) {
  let n = 0;
  const { url, seen } = await rawServer((req, res) => {
    req.resume();
    reply(req, res, n++);
  });
  const pool = new EndpointPool({
    urls: [url],
    apiKey: 'k',
    model: 'test-model',
    timeoutMs: 2000,
    maxRetries,
    maxReplyBytes: 1 << 20,
    role: 'world model',
    // Retries go at once: the test is about how many, not when.
    health: { setAsideAfter: 1000, cooldownMs: 0, maxCooldownMs: 0 },
  });
  const posts = () => seen.filter((s) => s.startsWith('POST')).length;
  const ask = () => pool.chat(pool.encode({ messages: [{ role: 'user', content: 'hi' }] }));
  return { pool, posts, ask };
}

describe('failuresRepeated: the policy', () => {
  it('stops after SAME_REFUSALS identical failures; a 500 only while nothing was answered, a cut connection even after', () => {
    let streak: RefusalStreak | undefined;
    for (let i = 1; i < SAME_REFUSALS; i++) streak = afterRefusal(streak, '500 boom', '500 boom');
    assert.equal(failuresRepeated(streak, false, 'status'), false);
    streak = afterRefusal(streak, '500 boom', '500 boom');
    assert.equal(failuresRepeated(streak, false, 'status'), true);
    assert.equal(failuresRepeated(streak, true, 'status'), false);
    assert.equal(failuresRepeated(streak, true, 'connection'), true);
    assert.equal(failuresRepeated(afterRefusal(streak, '500 other', '500 other'), false, 'status'), false);
    assert.equal(failuresRepeated(undefined, false, 'connection'), false);
  });
});

describe('the pool stops on failures that repeat', () => {
  it('the same 500 for every attempt, however worded: stopped after SAME_REFUSALS attempts, not after all the retries', async () => {
    const { ask, posts } = await poolOn((_req, res, n) => failed(res, 500, `bad parameter (request ${n})`), 30);
    await assert.rejects(ask(), isFault('failures-repeated', { failure: 'status', count: SAME_REFUSALS }));
    assert.equal(posts(), SAME_REFUSALS);
  });

  it("500s that differ (in their body's type or code, not only its words), and identical 502s, are retried to the end", async () => {
    for (const reply of [
      (_req: IncomingMessage, res: ServerResponse, n: number) =>
        failed(res, 500, 'failed', n % 2 ? 'EngineDeadError' : 'InternalServerError'),
      (_req: IncomingMessage, res: ServerResponse) => failed(res, 502, 'bad gateway'),
    ]) {
      const { ask, posts } = await poolOn(reply, 12);
      await assert.rejects(ask(), (err: unknown) => !(err instanceof Error && err.name === 'FaultError'));
      assert.equal(posts(), 13);
    }
  });

  it("the same 500 after an answer is the row's: retried to the end", async () => {
    const { ask, posts } = await poolOn((_req, res, n) => (n === 0 ? answer(res) : failed(res, 500, 'boom')), 12);
    await ask();
    await assert.rejects(ask(), (err: unknown) => !(err instanceof Error && err.name === 'FaultError'));
    assert.equal(posts(), 14);
  });

  it('connections cut under every request stop the run, even after answers', async () => {
    // Cut connections carry no wait to honour: one attempt for each of SAME_REFUSALS rows, so no backoff is waited out.
    const { ask, posts } = await poolOn((req, res, n) => (n === 0 ? answer(res) : req.socket.destroy()), 0);
    await ask();
    const ends = await Promise.allSettled(Array.from({ length: SAME_REFUSALS }, ask));
    const stopped = ends.filter((e) => e.status === 'rejected' && (e.reason as Error).name === 'FaultError');
    assert.equal(stopped.length, 1);
    assert.ok(
      isFault('failures-repeated', { failure: 'connection', count: SAME_REFUSALS, stream: false })(
        (stopped[0] as PromiseRejectedResult).reason,
      ),
    );
    assert.equal(posts(), 1 + SAME_REFUSALS);
  });
});
