/*
 * --max-cost's admission: the pure policy alone, then the cap around a row's requests with a hand-driven chat (each
 * reply comes when the test says), so what is admitted never depends on timing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CostCap, admits, requestBound } from '../../../src/core/runner/cost-cap.js';
import { emptyTally } from '../../../src/core/runner/accounting.js';
import { StoppedError, type ChatBody, type ChatResult } from '../../../src/core/endpoints/index.js';
import type { RowChat } from '../../../src/core/runner/stage.js';

describe('the admission policy', () => {
  it('admits a request only when spent, the bounds in flight and its own stay within the cap', () => {
    assert.equal(admits({ cap: 10, spent: 4, inFlight: 3 }, 3), true, 'exactly at the cap');
    assert.equal(admits({ cap: 10, spent: 4, inFlight: 3 }, 3.01), false);
    assert.equal(admits({ cap: 10, spent: 0, inFlight: 9 }, 2), false, 'the requests in flight count at their most');
    assert.equal(admits({ cap: 0, spent: 0, inFlight: 0 }, 0), true, 'a free request under a zero cap');
    assert.equal(admits({ cap: 0, spent: 0, inFlight: 0 }, 0.000001), false);
  });

  it('bounds a request by a token per byte of its JSON and its whole completion limit, at prices per million', () => {
    assert.equal(requestBound(2_000_000, 1_000, { input: 1, output: 10 }), 2 + 0.01);
    assert.equal(requestBound(500, 0, { input: 2, output: 8 }), 0.001);
  });
});

/** A chat whose replies the test hands out one by one, each with the usage it says. */
function handChat() {
  const pending: { resolve: (r: ChatResult) => void; reject: (e: Error) => void }[] = [];
  const chat: RowChat = {
    encode: () => ({ json: new Uint8Array(0) }),
    send: () => new Promise<ChatResult>((resolve, reject) => pending.push({ resolve, reject })),
  };
  const answer = (completionTokens: number | undefined) =>
    pending.shift()!.resolve({
      completion: {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [],
        ...(completionTokens === undefined
          ? {}
          : { usage: { prompt_tokens: 0, completion_tokens: completionTokens, total_tokens: completionTokens } }),
      },
      endpoint: 'e',
      latencyMs: 1,
    });
  return { chat, pending, answer, fail: () => pending.shift()!.reject(new Error('500')) };
}

/** A body of `bytes` bytes. */
const body = (bytes: number): ChatBody => ({ json: new Uint8Array(bytes) });
const signal = new AbortController().signal;
/** Settles a promise's outcome for the test to look at: its value, or the error it threw. */
const outcome = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('the cost cap around a row’s requests', () => {
  it('holds the requests in flight at their most, counts each answer at its usage, and stops once it refuses one', async () => {
    const reached: number[] = [];
    // $1 a completion token, prompts free: a request may cost its 100 tokens' $100; each answer costs what its usage says.
    const cap = new CostCap({ cap: 250, prices: { input: 0, output: 1e6 }, maxTokens: 100, onReached: (s) => reached.push(s.spent) });
    const hand = handChat();
    const chat = cap.chat(hand.chat);
    const a = outcome(chat.send(0, body(10), signal));
    const b = outcome(chat.send(0, body(10), signal));
    assert.deepEqual(cap.spending, { cap: 250, spent: 0, inFlight: 200 });
    // A third would make 300 at most: refused while both are in flight.
    const c = await outcome(chat.send(0, body(10), signal));
    assert.ok('error' in c && c.error instanceof StoppedError);
    assert.equal(cap.reached, true);
    assert.deepEqual(reached, [0]);
    assert.equal(cap.refused, 100);
    // The two in flight finish: 10 tokens and 30 tokens of usage.
    hand.answer(10);
    hand.answer(30);
    assert.ok('value' in (await a) && 'value' in (await b));
    assert.deepEqual(cap.spending, { cap: 250, spent: 40, inFlight: 0 });
    // Once refused, nothing more goes, though 40 + 100 would fit now: the run is stopping.
    const d = await outcome(chat.send(0, body(10), signal));
    assert.ok('error' in d && d.error instanceof StoppedError);
    assert.equal(hand.pending.length, 0);
    assert.deepEqual(reached, [0], 'told once');
  });

  it('starts from what the output’s rows cost, counts a reply without usage at its most and a failed request at nothing', async () => {
    const kept = { ...emptyTally(), promptTokens: 1_000_000, completionTokens: 20 };
    const cap = new CostCap({ cap: 100, prices: { input: 3, output: 1e6 }, maxTokens: 50, onReached: () => undefined });
    cap.start([kept, emptyTally()]);
    assert.equal(cap.spending.spent, 23);
    const hand = handChat();
    const chat = cap.chat(hand.chat);
    const failed = outcome(chat.send(0, body(0), signal));
    hand.fail();
    assert.ok('error' in (await failed));
    assert.equal(cap.spending.spent, 23);
    const silent = outcome(chat.send(0, body(0), signal));
    hand.answer(undefined);
    await silent;
    assert.equal(cap.spending.spent, 73, 'no usage: counted at its 50 tokens');
    // 73 + 50 > 100: refused before it is sent.
    const over = await outcome(chat.send(0, body(0), signal));
    assert.ok('error' in over && over.error instanceof StoppedError);
    assert.equal(cap.reached, true);
  });
});
