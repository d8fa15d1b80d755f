import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_HEALTH,
  afterFailure,
  afterSuccess,
  freshHealth,
  pickEndpoint,
  setAside,
  type Candidate,
} from '../../../src/core/endpoints/health.js';
import {
  SAME_REFUSALS,
  afterRefusal,
  backoffMs,
  isRetryable,
  overLimitStops,
  retryAfterMs,
  retryDelay,
  settingsRefused,
  unheededWaitS,
  type RefusalStreak,
} from '../../../src/core/endpoints/retry.js';
import { APIError } from 'openai';
import { Client } from '../../../src/core/endpoints/http/client.js';
import { refusalOf } from '../../../src/core/endpoints/classify.js';

const policy = { setAsideAfter: 3, cooldownMs: 1000, maxCooldownMs: 3000 };
const headers = (h: Record<string, string> = {}) => new Headers(h);

describe('endpoint health', () => {
  it('sets an endpoint aside after N consecutive failures, doubling the cooldown up to its cap', () => {
    let h = freshHealth(policy);
    h = afterFailure(h, policy, 0, 2);
    h = afterFailure(h, policy, 0, 2);
    assert.equal(h.setAsideUntil, 0);
    h = afterFailure(h, policy, 100, 2);
    assert.deepEqual(h, { consecutiveFailures: 0, setAsideUntil: 1100, cooldownMs: 2000 });
    for (let i = 0; i < 3; i++) h = afterFailure(h, policy, 5000, 2);
    assert.deepEqual(h, { consecutiveFailures: 0, setAsideUntil: 7000, cooldownMs: 3000 });
    assert.deepEqual(afterSuccess(policy), freshHealth(policy));
  });

  it('sets aside at once (an endpoint the preflight cannot reach) by the same rule: cooldown from now, doubled for next time', () => {
    const h = setAside({ consecutiveFailures: 2, setAsideUntil: 0, cooldownMs: 1000 }, policy, 500);
    assert.deepEqual(h, { consecutiveFailures: 0, setAsideUntil: 1500, cooldownMs: 2000 });
    assert.equal(setAside(h, policy, 0).cooldownMs, 3000, 'capped at the maximum');
  });

  it('never sets aside a lone endpoint', () => {
    let h = freshHealth(DEFAULT_HEALTH);
    for (let i = 0; i < 10; i++) h = afterFailure(h, DEFAULT_HEALTH, 0, 1);
    assert.equal(h.setAsideUntil, 0);
    assert.equal(h.consecutiveFailures, 10);
  });

  it('picks the endpoint in use with the fewest in flight, skipping those tried, and probes the soonest back when all are aside', () => {
    const c = (inFlight: number, setAsideUntil = 0): Candidate => ({ inFlight, health: { ...freshHealth(policy), setAsideUntil } });
    assert.deepEqual(pickEndpoint([c(3), c(1), c(2)], new Set(), 0), { index: 1, probe: false });
    assert.deepEqual(pickEndpoint([c(3), c(1), c(2)], new Set([1]), 0), { index: 2, probe: false });
    assert.deepEqual(pickEndpoint([c(0, 50), c(5)], new Set(), 10), { index: 1, probe: false });
    assert.deepEqual(pickEndpoint([c(0, 50), c(0, 30)], new Set(), 10), { index: 1, probe: true });
    // Every one tried: all are candidates again.
    assert.deepEqual(pickEndpoint([c(2), c(1)], new Set([0, 1]), 0), { index: 1, probe: false });
    // One paused by a 429's wait is passed over while another is free, however busy; when all are paused, the least busy.
    const paused = (inFlight: number, pausedUntil: number): Candidate => ({ ...c(inFlight), limiter: { pausedUntil } });
    assert.deepEqual(pickEndpoint([paused(0, 50), c(4)], new Set(), 10), { index: 1, probe: false });
    assert.deepEqual(pickEndpoint([paused(0, 5), c(4)], new Set(), 10), { index: 0, probe: false });
    assert.deepEqual(pickEndpoint([paused(3, 50), paused(1, 90)], new Set(), 10), { index: 1, probe: false });
  });
});

/** A refusal's body as classify.ts reads it: about nothing in particular. */
const refusal = { about: 'other' } as const;

describe('retry policy', () => {
  it('retries connection failures and the statuses that heal, as the server says when it says', () => {
    assert.equal(isRetryable({ kind: 'connection', cause: 'ECONNRESET' }), true);
    for (const status of [408, 409, 429, 500, 503])
      assert.equal(isRetryable({ kind: 'status', status, headers: headers(), refusal }), true, `${status}`);
    for (const status of [400, 422]) assert.equal(isRetryable({ kind: 'status', status, headers: headers(), refusal }), false, `${status}`);
    assert.equal(isRetryable({ kind: 'status', status: 503, headers: headers({ 'x-should-retry': 'false' }), refusal }), false);
    assert.equal(isRetryable({ kind: 'status', status: 400, headers: headers({ 'x-should-retry': 'true' }), refusal }), true);
  });

  it('honours Retry-After in ms, seconds or as a date', () => {
    assert.equal(retryAfterMs(headers({ 'retry-after-ms': '250' }), 0), 250);
    assert.equal(retryAfterMs(headers({ 'retry-after': '3' }), 0), 3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now), 5000);
    assert.equal(retryAfterMs(headers(), 0), undefined);
  });

  it('backs off exponentially up to 8 s with at most a quarter of jitter, and stops after maxRetries', () => {
    assert.equal(backoffMs(0, 0), 500);
    assert.equal(backoffMs(3, 0), 4000);
    assert.equal(backoffMs(10, 0), 8000);
    assert.equal(backoffMs(10, 1), 6000);
    const f429 = { kind: 'status' as const, status: 429, headers: headers({ 'retry-after': '2' }), refusal };
    assert.equal(retryDelay(f429, 0, 3, 0, 0), 2000);
    assert.equal(retryDelay({ kind: 'connection', cause: 'ECONNRESET' }, 1, 3, 0, 0), 1000);
    assert.equal(retryDelay({ kind: 'connection', cause: 'ECONNRESET' }, 3, 3, 0, 0), undefined);
    assert.equal(retryDelay({ kind: 'status', status: 400, headers: headers(), refusal }, 0, 3, 0, 0), undefined);
  });

  it('a malformed 200 (no chat completion in it) is retried as a reset is, within the same maxRetries', () => {
    assert.equal(isRetryable({ kind: 'malformed' }), true);
    assert.equal(retryDelay({ kind: 'malformed' }, 0, 1, 0, 0), 500);
    assert.equal(retryDelay({ kind: 'malformed' }, 0, 1, 0, 0, true), 0);
    assert.equal(retryDelay({ kind: 'malformed' }, 1, 1, 0, 0), undefined);
    assert.equal(retryDelay({ kind: 'malformed' }, 0, 0, 0, 0), undefined);
  });

  it("a retry going to another endpoint, one that has not failed the request, goes at once: the wait was the failed one's", () => {
    const asking = { kind: 'status' as const, status: 429, headers: headers({ 'retry-after': '30' }), refusal };
    assert.equal(retryDelay(asking, 0, 3, 0, 0, true), 0);
    assert.equal(retryDelay({ kind: 'connection', cause: 'ECONNRESET' }, 2, 3, 0, 0, true), 0);
    assert.equal(retryDelay(asking, 0, 3, 0, 0, false), 30_000);
    // Elsewhere or not, a request out of retries or refused for good fails now.
    assert.equal(retryDelay(asking, 3, 3, 0, 0, true), undefined);
    assert.equal(retryDelay({ kind: 'status', status: 400, headers: headers(), refusal }, 0, 3, 0, 0, true), undefined);
  });

  it('honours a Retry-After of up to a minute; a longer one (a daily quota) gets the usual backoff, not hours of silence', () => {
    const asking = (after: string) => ({ kind: 'status' as const, status: 429, headers: headers({ 'retry-after': after }), refusal });
    assert.equal(retryDelay(asking('60'), 0, 3, 0, 0), 60_000);
    assert.equal(retryDelay(asking('3600'), 0, 3, 0, 0), 500);
    assert.equal(retryDelay(asking('86400'), 2, 3, 0, 0), 2000);
    // Beyond what a timer can hold: Node would fire it at once, and retry in a tight loop.
    assert.equal(retryDelay(asking('1e10'), 0, 3, 0, 0), 500);
  });

  it('a Retry-After of 0 (or a date already past) gets the usual backoff, as the openai client gives it, not a tight loop', () => {
    const asking = (h: Record<string, string>) => ({ kind: 'status' as const, status: 429, headers: headers(h), refusal });
    assert.equal(retryDelay(asking({ 'retry-after': '0' }), 0, 3, 0, 0), 500);
    assert.equal(retryDelay(asking({ 'retry-after-ms': '0' }), 2, 3, 0, 0), 2000);
    assert.equal(retryDelay(asking({ 'retry-after': 'Thu, 01 Jan 2026 00:00:00 GMT' }), 1, 3, Date.parse('2026-01-02T00:00:00Z'), 0), 1000);
  });
});

describe('refusals and waits not taken', () => {
  it('names a Retry-After over a minute, in seconds, and nothing else', () => {
    const status = (h: Record<string, string>) => ({ kind: 'status' as const, status: 429, headers: headers(h), refusal });
    assert.equal(unheededWaitS(status({ 'retry-after': '86400' }), 0), 86_400);
    assert.equal(unheededWaitS(status({ 'retry-after-ms': '90500' }), 0), 91);
    assert.equal(unheededWaitS(status({ 'retry-after': '60' }), 0), undefined);
    assert.equal(unheededWaitS(status({ 'retry-after': 'soon' }), 0), undefined);
    assert.equal(unheededWaitS(status({}), 0), undefined);
    assert.equal(unheededWaitS(status({ 'retry-after': '1e400' }), 0), undefined);
    assert.equal(unheededWaitS({ kind: 'connection', cause: 'ECONNRESET' }, 0), undefined);
  });

  it('stops on the same refusal SAME_REFUSALS times in a row, only while nothing was ever answered', () => {
    let streak: RefusalStreak | undefined;
    for (let i = 1; i < SAME_REFUSALS; i++) streak = afterRefusal(streak, '400 no', '400 no');
    assert.equal(settingsRefused(streak, false), false);
    streak = afterRefusal(streak, '400 no', '400 no');
    assert.equal(streak.count, SAME_REFUSALS);
    assert.equal(settingsRefused(streak, false), true);
    assert.equal(settingsRefused(streak, true), false);
    // Another refusal (another key) starts over.
    assert.deepEqual(afterRefusal(streak, '400 too long: 40001 tokens', '400 too long: 40001 tokens'), {
      key: '400 too long: 40001 tokens',
      reason: '400 too long: 40001 tokens',
      count: 1,
    });
    assert.equal(settingsRefused(undefined, false), false);
  });

  it("a request over the whole tokens limit stops the run when the completion budget is the cause or rows keep coming over before any answer; else it is the row's", () => {
    assert.equal(overLimitStops(true, afterRefusal(undefined, 'over', 'over'), true), true);
    assert.equal(overLimitStops(false, afterRefusal(undefined, 'over', 'over'), false), false);
    let streak: RefusalStreak | undefined;
    for (let i = 0; i < SAME_REFUSALS; i++) streak = afterRefusal(streak, 'over', 'over');
    assert.equal(overLimitStops(false, streak, false), true);
    assert.equal(overLimitStops(false, streak, true), false);
  });
});

describe("refusalOf: a setting the server does not take, from the body's code and param first, its words last", () => {
  const client = new Client({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' });
  /** A refusal as the client builds it from a status and a JSON body. */
  const refused = (status: number, body: object) =>
    refusalOf(
      (client as unknown as { makeStatusError(s: number, e: object, m: undefined, h: Headers): APIError }).makeStatusError(
        status,
        body,
        undefined,
        headers(),
      ),
    );
  const openai = (message: string, param: string, code: string) => ({ error: { message, type: 'invalid_request_error', param, code } });

  it("OpenAI's unsupported max_tokens and temperature, with the one temperature the model takes", () => {
    const noMaxTokens = openai(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
    assert.deepEqual(refused(400, noMaxTokens).setting, { name: 'max_tokens' });
    const onlyDefault = openai(
      "Unsupported value: 'temperature' does not support 0.6 with this model. Only the default (1) value is supported.",
      'temperature',
      'unsupported_value',
    );
    assert.deepEqual(refused(400, onlyDefault).setting, { name: 'temperature', only: 1 });
    // The code and param alone: refused, the default unknown.
    assert.deepEqual(refused(400, openai('not this one', 'temperature', 'unsupported_value')).setting, { name: 'temperature' });
  });

  it("a FastAPI server's extra field, and a proxy's words without a code", () => {
    const extra = {
      detail: [{ type: 'extra_forbidden', loc: ['body', 'max_completion_tokens'], msg: 'Extra inputs are not permitted', input: 64 }],
    };
    assert.deepEqual(refused(422, extra).setting, { name: 'max_completion_tokens' });
    assert.deepEqual(refused(400, { message: 'max_completion_tokens is not supported by this backend' }).setting, {
      name: 'max_completion_tokens',
    });
  });

  it('nothing for another refusal, or a value out of range under a budget name', () => {
    assert.equal(refused(400, { error: { message: 'Unrecognized request argument supplied: foo' } }).setting, undefined);
    const tooLarge = {
      detail: [{ type: 'less_than_equal', loc: ['body', 'max_completion_tokens'], msg: 'Input should be less than or equal to 4096' }],
    };
    assert.equal(refused(422, tooLarge).setting, undefined);
  });
});
