import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as policy from '../../../../src/core/endpoints/pacing/rate-limit.js';
import { Limiter } from '../../../../src/core/endpoints/pacing/limiter.js';
import { isFault } from '../../../support/fault-kind.js';
import { startRateLimitedServer } from '../../../support/rate-limited-server.js';

const openai = (tokens: [number, number, string], requests: [number, number, string] = [10_000, 9_999, '6ms']) =>
  new Headers({
    'x-ratelimit-limit-tokens': String(tokens[0]),
    'x-ratelimit-remaining-tokens': String(tokens[1]),
    'x-ratelimit-reset-tokens': tokens[2],
    'x-ratelimit-limit-requests': String(requests[0]),
    'x-ratelimit-remaining-requests': String(requests[1]),
    'x-ratelimit-reset-requests': requests[2],
  });

describe('rate-limit headers', () => {
  it('reads durations as OpenAI writes them', () => {
    assert.equal(policy.parseDuration('6m0s'), 360_000);
    assert.equal(policy.parseDuration('1s'), 1000);
    assert.equal(policy.parseDuration('20ms'), 20);
    assert.equal(policy.parseDuration('1h2m3.5s'), 3_723_500);
    assert.equal(policy.parseDuration('2.5'), 2500);
    assert.equal(policy.parseDuration('soon'), undefined);
    assert.equal(policy.parseDuration('1x'), undefined);
    assert.equal(policy.parseDuration(null), undefined);
  });

  it('reads each limit only when its limit, remainder and reset are all there', () => {
    assert.deepEqual(policy.readLimitHeaders(openai([30_000, 29_000, '2s'])), {
      tokens: { limit: 30_000, remaining: 29_000, resetMs: 2000 },
      requests: { limit: 10_000, remaining: 9_999, resetMs: 6 },
    });
    assert.deepEqual(policy.readLimitHeaders(new Headers({ 'x-ratelimit-limit-tokens': '100', 'x-ratelimit-remaining-tokens': '5' })), {});
    assert.deepEqual(policy.readLimitHeaders(new Headers()), {});
  });

  it('reads which limit a 429 names from its type or its headers, and the figures of an OpenAI one, never its words', () => {
    const message =
      'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2.5s.';
    const code = 'rate_limit_exceeded';
    assert.deepEqual(policy.read429({ message, type: 'tokens', code }, undefined, 1), { kind: 'tokens', limit: 30_000, requested: 2000 });
    assert.deepEqual(policy.read429({ message, type: 'requests', code }, undefined, 1), { kind: 'requests' });
    // The words alone name nothing: no type, no headers.
    assert.deepEqual(policy.read429({ message, code }, undefined, 1), {});
    assert.deepEqual(policy.read429({ message: 'Too many requests' }, undefined, 1), {});
    // The figures only from OpenAI's code.
    assert.deepEqual(policy.read429({ message, type: 'tokens', code: '429' }, undefined, 1), { kind: 'tokens' });
    // Headers that show a limit spent: no request left, or fewer tokens than the request counts.
    const left = (requests: string, tokens: string) =>
      new Headers({ 'x-ratelimit-remaining-requests': requests, 'x-ratelimit-remaining-tokens': tokens });
    assert.deepEqual(policy.read429({ code: '429' }, left('0', '5000'), 100), { kind: 'requests' });
    assert.deepEqual(policy.read429({ code: '429' }, left('3', '50'), 100), { kind: 'tokens' });
    assert.deepEqual(policy.read429({ code: '429' }, left('3', '5000'), 100), {});
    assert.deepEqual(policy.read429(undefined, undefined, 100), {});
  });

  describe('against a local server speaking each dialect', () => {
    const ask = async (url: string, chars: number) => {
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'test-model', messages: [{ role: 'user', content: 'x'.repeat(chars) }] }),
      });
      const body = (await res.json()) as { error?: Record<string, unknown> };
      return { status: res.status, headers: res.headers, error: body.error };
    };
    for (const dialect of ['openai', 'azure'] as const) {
      it(`${dialect}: a tokens limit and a requests limit are told apart`, async () => {
        const tokens = await startRateLimitedServer({ tpm: 100, dialect });
        const requests = await startRateLimitedServer({ rpm: 1, dialect });
        try {
          const big = await ask(tokens.url, 800);
          assert.equal(big.status, 429);
          assert.equal(policy.read429(big.error, big.headers, 200).kind, 'tokens');
          assert.equal((await ask(requests.url, 4)).status, 200);
          const second = await ask(requests.url, 4);
          assert.equal(second.status, 429);
          assert.equal(policy.read429(second.error, second.headers, 1).kind, 'requests');
        } finally {
          await Promise.all([tokens.close(), requests.close()]);
        }
      });
    }
    it('a bare 429 names no limit: a pause, shown as a requests limit, and no bucket emptied', async () => {
      const bare = await startRateLimitedServer({ refuse: () => true });
      try {
        const r = await ask(bare.url, 4);
        assert.equal(r.status, 429);
        const said = policy.read429(r.error, r.headers, 1);
        assert.deepEqual(said, {});
        const t = policy.started(policy.freshBudget(4), 1, 4, 0);
        const b = policy.rateLimited(t.budget, t.ticket, { ...said, waitMs: 1000 }, 0);
        assert.deepEqual(policy.decide(b, 1, 0), { go: false, factor: 'requests/min', waitMs: 1000 });
      } finally {
        await bare.close();
      }
    });
  });
});

describe('rate-limit budget', () => {
  it('sends every request while the endpoint has said nothing of its limits (a slow first reply holds nothing back)', () => {
    const first = policy.started(policy.freshBudget(4), 1e9, 1, 0);
    assert.deepEqual(policy.decide(first.budget, 1e9, 0), { go: true });
    let b = policy.ended(first.budget, first.ticket, 0, 4);
    for (let i = 0; i < 10; i++) b = policy.started(b, 1e9, 1, 0).budget;
    assert.deepEqual(policy.decide(b, 1e9, 0), { go: true });
    assert.equal(b.cap, 4);
  });

  it('learns the bucket and its refill rate from a reply, less what was sent since', () => {
    let b = policy.freshBudget(8);
    const first = policy.started(b, 1000, 4000, 0);
    b = policy.started(first.budget, 1000, 4000, 0).budget; // a second request sent before the first's reply
    // 30 000 a "minute" of 2 s: 15 tokens per ms; the server counted the first request only.
    b = policy.learn(b, first.ticket, policy.readLimitHeaders(openai([30_000, 27_000, '200ms'])), 0);
    assert.equal(b.tokens!.perMs, 15);
    assert.equal(b.tokens!.level, 26_000);
    // Too little missing for the reset to say much: a minute's rate until it does.
    assert.equal(
      policy.learn(policy.freshBudget(8), first.ticket, policy.readLimitHeaders(openai([30_000, 29_900, '1ms'])), 0).tokens!.perMs,
      0.5,
    );
    assert.equal(b.limited, true);
  });

  it('takes off a reply the attempts sent shortly before it and not answered: they may have reached the server after it', () => {
    let b = policy.freshBudget(8);
    const sent = [0, 10, 1570, 1600].map((at) => {
      const s = policy.started(b, 1000, 4000, at);
      b = s.budget;
      return s.ticket;
    });
    // The one at 10 is answered; the one at 0 was sent more than REORDER_MS before the one at 1600: counted.
    assert.deepEqual(policy.maybeUncounted(sent[3]!, [sent[0]!, sent[2]!, sent[3]!]), { tokens: 1000, requests: 1 });
    b = policy.learn(
      b,
      sent[3]!,
      policy.readLimitHeaders(openai([30_000, 20_000, '20s'])),
      1600,
      policy.maybeUncounted(sent[3]!, [sent[0]!, sent[2]!]),
    );
    assert.equal(b.tokens!.level, 19_000);
  });

  it('holds a request until the bucket has refilled enough, and says it is the tokens limit', () => {
    let b: policy.Budget = { ...policy.freshBudget(8), limited: true, tokens: { limit: 30_000, perMs: 15, level: 1000, at: 0 } };
    // 4000 and the reserve (3 % of the limit, 900) less the 1000 there: 260 ms of refill.
    assert.deepEqual(policy.decide(b, 4000, 0), { go: false, factor: 'tokens/min', waitMs: 260 });
    assert.deepEqual(policy.decide(b, 4000, 260), { go: true });
    b = { ...b, requests: { limit: 60, perMs: 0.001, level: 0.5, at: 0 } };
    assert.deepEqual(policy.decide(b, 1, 0), { go: false, factor: 'requests/min', waitMs: 2300 });
  });

  it('with limits stated: halves the slots once per burst of 429s, pauses for the wait asked, and grows back one per roomy answer', () => {
    let b: policy.Budget = { ...policy.freshBudget(16), limited: true, tokens: { limit: 60, perMs: 0.001, level: 60, at: 0 } };
    const tickets = [];
    for (let i = 0; i < 16; i++) {
      const s = policy.started(b, 100, 400, 0);
      b = s.budget;
      tickets.push(s.ticket);
    }
    b = policy.rateLimited(b, tickets[0]!, { kind: 'tokens', waitMs: 2500 }, 10);
    b = policy.ended(b, tickets[0]!, 10, 16);
    b = policy.rateLimited(b, tickets[1]!, { kind: 'tokens', waitMs: 2000 }, 11);
    b = policy.ended(b, tickets[1]!, 11, 16);
    assert.equal(b.cap, 8);
    assert.deepEqual(policy.decide(b, 100, 11), { go: false, factor: 'tokens/min', waitMs: 2499 });
    for (const t of tickets.slice(2, 11)) b = policy.ended(b, t, 3000, 16);
    assert.equal(b.inFlight, 5);
    assert.equal(b.cap, 8, 'the bucket the 429 emptied shows no room yet: the slots stay');
    b = policy.learn(b, tickets[11]!, policy.readLimitHeaders(openai([30_000, 29_000, '2s'])), 3000);
    b = policy.ended(b, tickets[11]!, 3000, 16);
    assert.equal(b.cap, 9);
  });

  it('with no limits stated: a 429 pauses for the wait asked and keeps -c, however many come (issue 51)', () => {
    let b = policy.freshBudget(16);
    for (let round = 0; round < 5; round++) {
      const tickets = [];
      for (let i = 0; i < 16; i++) {
        const d = policy.decide(b, 100, round * 10_000);
        assert.deepEqual(d, { go: true }, `round ${round}, attempt ${i}`);
        const s = policy.started(b, 100, 400, round * 10_000);
        b = s.budget;
        tickets.push(s.ticket);
      }
      const at = round * 10_000 + 5;
      b = policy.rateLimited(b, tickets[0]!, { waitMs: 1000 }, at);
      b = policy.ended(b, tickets[0]!, at, 16);
      assert.deepEqual(policy.decide(b, 100, at), { go: false, factor: 'requests/min', waitMs: 1000 });
      for (const t of tickets.slice(1)) b = policy.ended(b, t, at + 10, 16);
      assert.equal(b.cap, 16);
      assert.deepEqual(policy.decide(b, 100, at + 1000), { go: true });
    }
  });

  it('sizes requests by what replies and 429s say the server counts', () => {
    let b = policy.freshBudget(4);
    assert.equal(policy.estimateTokens(b, 4000), 1000);
    const s = policy.started(b, 1000, 4000, 0);
    for (let i = 0; i < 30; i++) b = policy.learnUsage(b, s.ticket, { prompt_tokens: 2000, completion_tokens: 50 });
    assert.ok(Math.abs(policy.estimateTokens(b, 4000) - 2050) < 5, String(policy.estimateTokens(b, 4000)));
    // OpenAI counts max_tokens too: "Requested" says so.
    const t = policy.started(b, policy.estimateTokens(b, 4000), 4000, 0);
    b = policy.rateLimited(t.budget, t.ticket, { requested: 10_000 }, 0);
    assert.ok(b.overhead > 1000, String(b.overhead));
  });
});

describe('a request larger than the whole tokens limit', () => {
  const limited = (over: Partial<policy.Budget> = {}): policy.Budget => ({
    ...policy.freshBudget(8),
    limited: true,
    tokens: { limit: 30_000, perMs: 0.5, level: 30_000, at: 0 },
    ...over,
  });

  it('is never sent once the limit is known: its estimate, without the margin pacing adds, is over the limit', () => {
    assert.equal(policy.neverFits(policy.freshBudget(8), 1e9), undefined, 'no limit known: sent, the server decides');
    assert.equal(policy.neverFits(limited(), 120_000), undefined, 'exactly the limit: it fits a full bucket');
    assert.deepEqual(policy.neverFits(limited(), 140_000), { tokens: 35_000, limit: 30_000, promptTokens: 35_000, promptFits: false });
    // Prompts of uneven size make the estimate uncertain: a request that may fit is sent.
    assert.equal(policy.neverFits(limited({ tokensPerByteDev: 0.1 }), 100_000), undefined);
    assert.ok(policy.estimateTokens(limited({ tokensPerByteDev: 0.1 }), 100_000) > 30_000);
  });

  it('says when the server adds the completion budget (max_tokens) to the count and the prompt would fit without it', () => {
    assert.deepEqual(policy.neverFits(limited({ overhead: 20_000, completionTokens: 500 }), 44_000), {
      tokens: 31_500,
      limit: 30_000,
      promptTokens: 11_000,
      promptFits: true,
    });
  });

  it('is known from a 429 counting it over the limit, with headers or with the message alone; a smaller body is not', () => {
    const message = 'Request too large on tokens per min (TPM): Limit 30000, Requested 50000.';
    for (const b of [limited(), { ...policy.freshBudget(8), limited: true }]) {
      const t = policy.started(b, 1000, 4000, 0);
      const after = policy.rateLimited(
        t.budget,
        t.ticket,
        { ...policy.read429({ message, type: 'tokens', code: 'rate_limit_exceeded' }, undefined, 1000), waitMs: 1000 },
        0,
      );
      assert.deepEqual(policy.neverFits(after, 4000), { tokens: 50_000, limit: 30_000, promptTokens: 1000, promptFits: true });
      assert.equal(policy.neverFits(after, 3999), undefined);
    }
    // A 429 of a request within the limit (the bucket was low) marks nothing.
    const t = policy.started(limited(), 1000, 4000, 0);
    const after = policy.rateLimited(t.budget, t.ticket, { kind: 'tokens', limit: 30_000, requested: 2000 }, 0);
    assert.equal(after.tooLarge, undefined);
  });

  it('fails at once with its fault, and a waiting one as soon as a 429 shows it can never fit', async () => {
    const endpoint = 'http://127.0.0.1:9/v1';
    const limiter = new Limiter(8, endpoint);
    const [first, second] = [
      await limiter.acquire(4000, new AbortController().signal),
      await limiter.acquire(100_000, new AbortController().signal),
    ];
    limiter.answered(first, openai([30_000, 0, '60s']));
    await assert.rejects(
      limiter.acquire(200_000, new AbortController().signal),
      isFault('request-over-token-limit', { endpoint, limit: 30_000 }),
    );
    // Within the estimate's reach, so it waits for the bucket; the server's count of a body as large says otherwise.
    const waiting = limiter.acquire(100_000, new AbortController().signal);
    const refused = new Headers({ 'retry-after-ms': '60000' });
    const said = {
      message: 'Request too large on tokens per min (TPM): Limit 30000, Requested 40000.',
      type: 'tokens',
      code: 'rate_limit_exceeded',
    };
    assert.ok(isFault('request-over-token-limit', { tokens: 40_000 })(limiter.failed(second, 429, refused, said)));
    await assert.rejects(waiting, isFault('request-over-token-limit', { endpoint, tokens: 40_000, limit: 30_000 }));
    assert.equal(limiter.stats().waiting, 0);
  });
});

describe('Limiter', () => {
  it('lets waiters go in the order they came as the bucket refills, and an abort takes one out', async () => {
    const limiter = new Limiter(8, 'http://127.0.0.1/v1');
    const first = await limiter.acquire(400, new AbortController().signal);
    // 100 tokens each, 1000 a "minute" of 1 s: 1 per ms, 100 ms a request; none left.
    limiter.answered(first, openai([1000, 0, '1s']));
    const order: number[] = [];
    const gone = new AbortController();
    const waits = [0, 1, 2, 3].map((i) =>
      limiter.acquire(400, i === 2 ? gone.signal : new AbortController().signal).then(
        () => order.push(i),
        (err: unknown) => order.push(err === 'gone' ? -1 : -2),
      ),
    );
    assert.equal(limiter.stats().limitedBy, 'tokens/min');
    gone.abort('gone');
    await Promise.all(waits);
    assert.deepEqual(order, [-1, 0, 1, 3]);
    assert.equal(limiter.stats().tokensPerMin, 60_000);
  });
});
