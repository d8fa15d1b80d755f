/*
 * Pacing requests to an endpoint's rate limits (issue 38): pure functions over
 * plain state, so the policy is tested without a server or a clock. OpenAI and
 * most proxies say where a key stands in every reply's headers
 * (`x-ratelimit-limit-*`, `-remaining-*`, `-reset-*`, for requests and tokens);
 * the limits replenish continuously, `reset` being the time until the
 * remainder is back at the limit. Each endpoint keeps a budget: a bucket per
 * limit it has been told of, refilled at the rate the headers imply and drawn
 * on by each attempt's estimated tokens as it starts, set to the server's
 * figure (less what was sent since) with each reply. Until an endpoint sends
 * such a header or a 429, its budget has no bucket and lets every request go:
 * vLLM, llama.cpp and SGLang send none, and run as they did, at `-c` from the
 * start (a first reply that takes minutes must not hold the others back).
 */

export interface Headers {
  get(name: string): string | null;
}

/** One limit as a reply states it. */
export interface Gauge {
  limit: number;
  remaining: number;
  /** Until the remainder is back at the limit. */
  resetMs: number;
}

export interface LimitHeaders {
  requests?: Gauge;
  tokens?: Gauge;
}

export type LimitKind = keyof LimitHeaders;

/** What holds a request back: the slots (`-c`, or fewer after a 429), or one of the per-minute limits. */
export type LimitingFactor = 'concurrency' | 'tokens/min' | 'requests/min';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 1e-6 };

/** A Go-style duration as OpenAI writes it ("6m0s", "1s", "20ms", "1h2m3.5s"), or a bare number of seconds, in ms. */
export function parseDuration(text: string | null): number | undefined {
  if (text === null) return undefined;
  const s = text.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(s)) return undefined;
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) ms += Number(n) * UNIT_MS[unit!]!;
  return ms;
}

function count(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

/** The limits a reply states; a limit is read only when its limit, remainder and reset are all there. */
export function readLimitHeaders(h: Headers): LimitHeaders {
  const out: LimitHeaders = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const limit = count(h.get(`x-ratelimit-limit-${kind}`));
    const remaining = count(h.get(`x-ratelimit-remaining-${kind}`));
    const resetMs = parseDuration(h.get(`x-ratelimit-reset-${kind}`));
    if (limit !== undefined && limit > 0 && remaining !== undefined && resetMs !== undefined) out[kind] = { limit, remaining, resetMs };
  }
  return out;
}

/** What a 429 says of the limit it hit (read429). */
export interface Said429 {
  kind?: LimitKind;
  limit?: number;
  requested?: number;
}

/**
 * What a 429 says of the limit it hit, read from its structure, never its words. Which limit: OpenAI's
 * error `type` ("tokens" or "requests"), else the limit the reply's `x-ratelimit-remaining-*` headers
 * show spent (Azure and proxies send those without a type): no request left, or fewer tokens left than
 * the request was counted at (`tokens`). A 429 that says neither (a bare proxy's, vLLM behind a
 * gateway) names no limit: the endpoint is paused as for a requests limit, and no tokens bucket is
 * emptied. The figures: what the request was counted at ("Requested N") and the limit ("Limit N")
 * OpenAI states only in its message; they are read, as numbers, only from an error whose `code` is
 * OpenAI's `rate_limit_exceeded` and whose limit is known to be the tokens one. They correct the
 * estimate; without them it stands.
 */
export function read429(
  body: { type?: unknown; code?: unknown; message?: unknown } | undefined,
  h: Headers | undefined,
  tokens: number,
): Said429 {
  const type = body?.type;
  const left = (kind: LimitKind) => count(h?.get(`x-ratelimit-remaining-${kind}`) ?? null);
  const requestsLeft = left('requests');
  const tokensLeft = left('tokens');
  const kind: LimitKind | undefined =
    type === 'tokens' || type === 'requests'
      ? type
      : requestsLeft !== undefined && requestsLeft < 1
        ? 'requests'
        : tokensLeft !== undefined && tokensLeft < tokens
          ? 'tokens'
          : undefined;
  if (kind !== 'tokens' || body?.code !== 'rate_limit_exceeded' || typeof body.message !== 'string') return kind ? { kind } : {};
  const limit = /\bLimit (\d+)/.exec(body.message)?.[1];
  const requested = /\bRequested (\d+)/.exec(body.message)?.[1];
  return { kind, ...(limit ? { limit: Number(limit) } : {}), ...(requested ? { requested: Number(requested) } : {}) };
}

/** A limit's bucket: what is left at `at`, refilled at `perMs` up to `limit`. */
export interface Bucket {
  limit: number;
  perMs: number;
  level: number;
  at: number;
}

/** The budget of one endpoint (one key): its buckets once known, the slots it may use, and how it sizes a request. */
export interface Budget {
  tokens?: Bucket;
  requests?: Bucket;
  /** Whether the endpoint has said anything about its limits: a header or a 429. Until then nothing is paced. */
  limited: boolean;
  /** Attempts it may have in flight: `-c` at first, halved on a 429 when it states its limits, grown back while the headers show room. */
  cap: number;
  inFlight: number;
  /** Running totals of what was started, so a reply's figures can be brought up to date (see `learn`). */
  sentTokens: number;
  sentRequests: number;
  /** No attempt starts before this (a 429's wait), and why. */
  pausedUntil: number;
  pausedFor?: LimitKind;
  /** When the slots were last halved: the 429s of attempts started before then are the same congestion. */
  lastCut: number;
  /**
   * The estimate of a request: prompt tokens per body byte (its mean and mean deviation over the
   * answers' usage, of which there were `samples`), completion tokens, and what the server adds to that.
   */
  tokensPerByte: number;
  tokensPerByteDev: number;
  samples: number;
  completionTokens: number;
  overhead: number;
  /** The smallest body a 429 counted over the whole tokens limit: the server's count of it, and that limit (see neverFits). */
  tooLarge?: { bytes: number; tokens: number; limit: number };
}

/** JSON bodies of English text run at about four bytes a token; the first replies' usage corrects it. */
export const START_TOKENS_PER_BYTE = 0.25;
/** How much each observation moves an estimate (an exponential moving average). */
const LEARN = 0.2;
/** The rate assumed before one can be read off the headers: limits are per minute. */
const MINUTE_MS = 60_000;
/**
 * The part of a limit left unspent: a reply's remainder was counted when the server took the
 * request, a little after it was sent, so what refilled in between is counted twice. Leaving this
 * much in the bucket costs one short wait at the start, not throughput (a bucket that is not full keeps refilling).
 */
export const RESERVE = 0.03;
/** Without a retry-after, a 429 pauses the endpoint this long. */
const PAUSE_MS = 1000;

export function freshBudget(ceiling: number): Budget {
  return {
    limited: false,
    cap: ceiling,
    inFlight: 0,
    sentTokens: 0,
    sentRequests: 0,
    pausedUntil: 0,
    lastCut: -Infinity,
    tokensPerByte: START_TOKENS_PER_BYTE,
    tokensPerByteDev: 0,
    samples: 0,
    completionTokens: 0,
    overhead: 0,
  };
}

/**
 * A request's tokens as the server will count them, from its body's size: on the high side (a
 * mean deviation of the rate over its mean), since one counted short is a 429 and one counted long only a short wait.
 */
export function estimateTokens(b: Budget, bytes: number): number {
  return Math.max(1, Math.round(bytes * (b.tokensPerByte + b.tokensPerByteDev) + b.completionTokens + b.overhead));
}

export function levelAt(k: Bucket, now: number): number {
  return Math.min(k.limit, k.level + Math.max(0, now - k.at) * k.perMs);
}

/**
 * A request the tokens limit can never take, however long it waits: what it counts (`tokens`), the
 * limit, the prompt's share, and whether the prompt with a usual completion would fit, so that
 * what pushes it over is what the server adds (OpenAI counts all of max_tokens).
 */
export interface OverLimit {
  tokens: number;
  limit: number;
  promptTokens: number;
  promptFits: boolean;
}

/**
 * Whether a request of `bytes` can never be sent within the endpoint's tokens limit: it counts
 * more than the whole limit, and a bucket never holds more. It counts what the server counted a
 * body at least as large at (a 429's "Requested"), else its estimate without the margin that
 * pacing adds, so that a request that may fit is sent.
 */
export function neverFits(b: Budget, bytes: number): OverLimit | undefined {
  const limit = b.tokens?.limit ?? b.tooLarge?.limit;
  if (limit === undefined) return undefined;
  const promptTokens = Math.round(bytes * b.tokensPerByte);
  const estimated = Math.round(promptTokens + b.completionTokens + b.overhead);
  const tokens = b.tooLarge && bytes >= b.tooLarge.bytes ? Math.max(estimated, b.tooLarge.tokens) : estimated;
  if (tokens <= limit) return undefined;
  return { tokens, limit, promptTokens, promptFits: promptTokens + b.completionTokens <= limit };
}

export type Decision = { go: true } | { go: false; factor: LimitingFactor; /** undefined: until an attempt ends. */ waitMs?: number };

/**
 * Whether an attempt of `tokens` may start now. One larger than the whole
 * limit is refused before this is asked (neverFits); were it asked, it would
 * go once the bucket is full.
 */
export function decide(b: Budget, tokens: number, now: number): Decision {
  if (!b.limited) return { go: true };
  if (now < b.pausedUntil)
    // A 429 that named no limit pauses as a requests limit would (read429).
    return { go: false, factor: b.pausedFor === 'tokens' ? 'tokens/min' : 'requests/min', waitMs: b.pausedUntil - now };
  if (b.inFlight >= b.cap) return { go: false, factor: 'concurrency' };
  for (const [k, need, factor] of [
    [b.requests, 1, 'requests/min'],
    [b.tokens, tokens, 'tokens/min'],
  ] as const) {
    if (!k) continue;
    const short = Math.min(need + k.limit * RESERVE, k.limit) - levelAt(k, now);
    if (short > 0) return { go: false, factor, waitMs: Math.ceil(short / k.perMs) };
  }
  return { go: true };
}

/** An attempt under way: what it was counted at, and the running totals just after it, for `learn`. */
export interface Ticket {
  tokens: number;
  bytes: number;
  at: number;
  sentTokens: number;
  sentRequests: number;
}

function draw(k: Bucket | undefined, n: number, now: number): Bucket | undefined {
  return k && { ...k, level: levelAt(k, now) - n, at: now };
}

/** The budget once an attempt of `tokens` (a body of `bytes`) has started. */
export function started(b: Budget, tokens: number, bytes: number, now: number): { budget: Budget; ticket: Ticket } {
  const budget: Budget = {
    ...b,
    inFlight: b.inFlight + 1,
    sentTokens: b.sentTokens + tokens,
    sentRequests: b.sentRequests + 1,
    tokens: draw(b.tokens, tokens, now),
    requests: draw(b.requests, 1, now),
  };
  return { budget, ticket: { tokens, bytes, at: now, sentTokens: budget.sentTokens, sentRequests: budget.sentRequests } };
}

/**
 * A bucket as a reply states it. The server counted the remainder when it
 * took the request (about when it was sent): what has been sent since is
 * taken off it, what has been refilled since added. The refill rate is read
 * off the headers (what is missing ÷ the time to refill it) when enough is
 * missing for the figure to mean something, else kept (at first a minute's).
 */
export function bucketFrom(g: Gauge, old: Bucket | undefined, sentSince: number, since: number, now: number): Bucket {
  const missing = g.limit - g.remaining;
  const read = missing >= g.limit * 0.05 && g.resetMs > 0 ? missing / g.resetMs : undefined;
  const fallback = old && old.limit === g.limit ? old.perMs : g.limit / MINUTE_MS;
  const perMs = read === undefined ? fallback : old && old.limit === g.limit ? old.perMs + LEARN * (read - old.perMs) : read;
  const level = Math.min(g.limit, g.remaining + Math.max(0, now - since) * perMs) - sentSince;
  return { limit: g.limit, perMs, level, at: now };
}

/** How long before an attempt another may have been sent and still reach the server after it: those let go together (one refill), whose bodies race. */
export const REORDER_MS = 50;

/**
 * What a reply to `t` may not count yet: the attempts sent shortly before it and not answered, which
 * may have reached the server after it. Those sent longer before were surely counted.
 */
export function maybeUncounted(t: Ticket, inFlight: Iterable<Ticket>): { tokens: number; requests: number } {
  const out = { tokens: 0, requests: 0 };
  for (const o of inFlight) {
    if (o.sentRequests >= t.sentRequests || o.at < t.at - REORDER_MS) continue;
    out.tokens += o.tokens;
    out.requests++;
  }
  return out;
}

/**
 * Brings the budget's buckets to what a reply (an answer or a 429) of the attempt `t` states;
 * `uncounted`: what the server may not have counted in it yet (maybeUncounted).
 */
export function learn(b: Budget, t: Ticket, h: LimitHeaders, now: number, uncounted = { tokens: 0, requests: 0 }): Budget {
  const out: Budget = { ...b };
  if (h.tokens) out.tokens = bucketFrom(h.tokens, b.tokens, b.sentTokens - t.sentTokens + uncounted.tokens, t.at, now);
  if (h.requests) out.requests = bucketFrom(h.requests, b.requests, b.sentRequests - t.sentRequests + uncounted.requests, t.at, now);
  if (h.tokens || h.requests) out.limited = true;
  return out;
}

/** What an answer's usage says of the estimate: prompt tokens per byte, and the completion's tokens. */
export function learnUsage(b: Budget, t: Ticket, usage: { prompt_tokens?: number; completion_tokens?: number } | undefined): Budget {
  const out = { ...b };
  if (!usage?.prompt_tokens || t.bytes <= 0) return out;
  out.samples++;
  // The first answers are averaged alike, so the start's guess is soon gone; later ones weigh LEARN each.
  const w = Math.max(LEARN, 1 / out.samples);
  const rate = usage.prompt_tokens / t.bytes;
  out.tokensPerByteDev = out.samples === 1 ? 0 : out.tokensPerByteDev + w * (Math.abs(rate - out.tokensPerByte) - out.tokensPerByteDev);
  out.tokensPerByte = out.samples === 1 ? rate : out.tokensPerByte + w * (rate - out.tokensPerByte);
  if (usage.completion_tokens !== undefined) out.completionTokens += w * (usage.completion_tokens - out.completionTokens);
  return out;
}

/** The attempt `t` ended; `room`: its reply showed the limits with room for one more such request, so a slot is won back. */
export function ended(b: Budget, t: Ticket, now: number, ceiling: number): Budget {
  const known = [
    [b.tokens, t.tokens],
    [b.requests, 1],
  ] as const;
  const room = (b.tokens || b.requests) && known.every(([k, need]) => !k || levelAt(k, now) >= need);
  return { ...b, inFlight: b.inFlight - 1, cap: room ? Math.min(ceiling, b.cap + 1) : b.cap };
}

/**
 * After a 429 of the attempt `t` (before `ended`, and after `learn` of its headers): no attempt starts
 * until the wait it asked for is over (a second if it named none) and the bucket it names is empty;
 * "Requested N" corrects what the server adds to the estimate, and, over the whole limit, marks
 * bodies this large as never fitting (neverFits). The slots are halved (once for the 429s of
 * attempts sent together) only when the endpoint states its limits: only headers showing room win
 * them back (`ended`), so an endpoint without them (a proxy in front of vLLM, say) would lose its
 * `-c` for good, one 429 at a time. There the pause alone paces it, and `-c` stays.
 */
export function rateLimited(b: Budget, t: Ticket, said: Said429 & { waitMs?: number }, now: number): Budget {
  const out: Budget = { ...b, limited: true, pausedUntil: Math.max(b.pausedUntil, now + (said.waitMs ?? PAUSE_MS)) };
  if (said.kind) out.pausedFor = said.kind;
  if ((out.tokens || out.requests) && t.at >= b.lastCut) {
    out.cap = Math.max(1, Math.floor(Math.min(b.cap, b.inFlight) / 2));
    out.lastCut = now;
  }
  const k = said.kind && out[said.kind];
  if (k) out[said.kind!] = { ...k, level: Math.min(levelAt(k, now), 0), at: now };
  if (said.requested !== undefined) out.overhead += LEARN * (said.requested - (t.tokens - b.overhead) - out.overhead);
  const limit = said.kind === 'tokens' ? (out.tokens?.limit ?? said.limit) : undefined;
  if (limit !== undefined && said.requested !== undefined && said.requested > limit && t.bytes < (b.tooLarge?.bytes ?? Infinity))
    out.tooLarge = { bytes: t.bytes, tokens: said.requested, limit };
  return out;
}
