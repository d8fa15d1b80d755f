/*
 * A local chat server that enforces per-minute limits on requests and tokens
 * the way OpenAI does (issue 38), for the tests and `npm run bench:rate`.
 * Each limit is a bucket holding `limit` that refills continuously over one
 * window (a minute by default; tests use a "minute" of a second or two); a
 * request is counted when it arrives, at its messages' characters ÷ 4 (as
 * OpenAI's limiter estimates) plus its max_tokens when `countMaxTokens` is
 * set, and is refused with OpenAI's 429 (its words, `retry-after` and
 * `retry-after-ms`) when a bucket lacks it. Answers and 429s carry
 * `x-ratelimit-limit-*`, `-remaining-*` and `-reset-*` as stated when the
 * request arrived, unless `headers` is false (vLLM, llama.cpp: no headers).
 *
 * Replies are a judge's, its scores drawn from a hash of the request, so a
 * run's results are the same however it was paced. It imports nothing from
 * the project so the benchmark can use it too.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RateLimitedOptions {
  rpm?: number;
  tpm?: number;
  /** The "minute" the limits refill over, in ms (default 60 000). */
  windowMs?: number;
  /** Send the x-ratelimit-* headers (default true). */
  headers?: boolean;
  /**
   * Whose 429 to speak: OpenAI's (default: an error `type` naming the limit, code `rate_limit_exceeded`,
   * all six headers) or Azure OpenAI's (`code: "429"`, no `type`, and of the headers only
   * `x-ratelimit-remaining-requests` and `-tokens`), which names the limit in words alone.
   */
  dialect?: 'openai' | 'azure';
  /** Count a request's max_tokens against the tokens limit, as OpenAI does (default false). */
  countMaxTokens?: boolean;
  /** Delay before an answer (not before a 429), per request. */
  latencyMs?: number | ((tokens: number) => number);
  model?: string;
  /**
   * Requests (numbered from 1) refused with a bare 429 whatever the limits: `retry-after: 1` and, as
   * a proxy without limit headers answers, nothing else to go by (issue 51: a few per cent of such 429s).
   */
  refuse?: (n: number) => boolean;
}

export interface RateLimitedStats {
  requests: number;
  answered: number;
  rateLimited: number;
  /** Tokens of the answered requests, as the limiter counted them. */
  tokens: number;
  inFlight: number;
  maxInFlight: number;
  /** Per `refuse`d request, the most requests in flight at once after it (until the next one). */
  maxInFlightAfterRefusal: number[];
  firstAt: number;
  lastAt: number;
}

export interface RateLimitedServer {
  url: string;
  readonly stats: RateLimitedStats;
  reset(): void;
  close(): Promise<void>;
}

interface Bucket {
  limit: number;
  level: number;
  at: number;
}

/** A duration as OpenAI writes one: "6m0s", "1.5s", "20ms". */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms - m * 60_000) / 10) / 100;
  return m ? `${m}m${s}s` : `${s}s`;
}

export async function startRateLimitedServer(opts: RateLimitedOptions = {}): Promise<RateLimitedServer> {
  const windowMs = opts.windowMs ?? 60_000;
  const model = opts.model ?? 'test-model';
  const buckets = {
    requests: opts.rpm ? { limit: opts.rpm, level: opts.rpm, at: Date.now() } : undefined,
    tokens: opts.tpm ? { limit: opts.tpm, level: opts.tpm, at: Date.now() } : undefined,
  };
  let stats = fresh();
  const level = (b: Bucket, now: number) => Math.min(b.limit, b.level + ((now - b.at) * b.limit) / windowMs);

  function limitHeaders(now: number): Record<string, string> {
    if (opts.headers === false) return {};
    const out: Record<string, string> = {};
    for (const [kind, b] of Object.entries(buckets)) {
      if (!b) continue;
      const left = Math.max(0, level(b, now));
      out[`x-ratelimit-remaining-${kind}`] = String(Math.floor(left));
      if (opts.dialect === 'azure') continue;
      out[`x-ratelimit-limit-${kind}`] = String(b.limit);
      out[`x-ratelimit-reset-${kind}`] = goDuration(((b.limit - left) * windowMs) / b.limit);
    }
    return out;
  }

  function refusal(kind: 'requests' | 'tokens', b: Bucket, need: number, now: number): { headers: Record<string, string>; body: string } {
    const left = level(b, now);
    const waitMs = Math.max(1, Math.ceil(((Math.min(need, b.limit) - left) * windowMs) / b.limit));
    const headers = { ...limitHeaders(now), 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) };
    if (opts.dialect === 'azure') {
      const message =
        `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded ${kind === 'tokens' ? 'token' : 'call'} ` +
        `rate limit of your current OpenAI S0 pricing tier. Please retry after ${Math.ceil(waitMs / 1000)} seconds.`;
      return { headers, body: JSON.stringify({ error: { code: '429', message } }) };
    }
    const what = kind === 'tokens' ? 'tokens per min (TPM)' : 'requests per min (RPM)';
    const message =
      `Rate limit reached for ${model} in organization org-test on ${what}: Limit ${b.limit}, Used ${Math.round(b.limit - left)}, ` +
      `Requested ${need}. Please try again in ${goDuration(waitMs)}. Visit https://platform.openai.com/account/rate-limits to learn more.`;
    return {
      headers,
      body: JSON.stringify({ error: { message, type: kind, param: null, code: 'rate_limit_exceeded' } }),
    };
  }

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(text) as { messages: { content?: unknown }[]; max_tokens?: number };
    const chars = body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
    const prompt = Math.ceil(chars / 4);
    const cost = prompt + (opts.countMaxTokens ? (body.max_tokens ?? 0) : 0);
    const now = Date.now();
    stats.requests++;
    stats.firstAt ||= now;
    if (opts.refuse?.(stats.requests)) {
      stats.rateLimited++;
      stats.maxInFlightAfterRefusal.push(0);
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(JSON.stringify({ error: { message: 'Too many requests, retry later.', type: 'rate_limit_error', code: 429 } }));
      return;
    }
    for (const [kind, b, need] of [
      ['requests', buckets.requests, 1],
      ['tokens', buckets.tokens, cost],
    ] as const) {
      if (b && level(b, now) < need) {
        stats.rateLimited++;
        const r = refusal(kind, b, need, now);
        res.writeHead(429, { 'content-type': 'application/json', ...r.headers }).end(r.body);
        return;
      }
    }
    for (const [b, n] of [
      [buckets.requests, 1],
      [buckets.tokens, cost],
    ] as const) {
      if (b) Object.assign(b, { level: level(b, now) - n, at: now });
    }
    const headers = limitHeaders(now);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    const after = stats.maxInFlightAfterRefusal;
    if (after.length) after[after.length - 1] = Math.max(after.at(-1)!, stats.inFlight);
    const latency = typeof opts.latencyMs === 'function' ? opts.latencyMs(cost) : (opts.latencyMs ?? 0);
    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    stats.inFlight--;
    stats.answered++;
    stats.tokens += cost;
    stats.lastAt = Date.now();
    const content = judgeReply(createHash('sha256').update(text).digest());
    const completion = Math.ceil(content.length / 4);
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(
      JSON.stringify({
        id: `chatcmpl-rl-${stats.requests}`,
        object: 'chat.completion',
        created: Math.floor(now / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      }),
    );
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: model, object: 'model' }] }));
    } else if (req.method === 'POST' && path === '/v1/chat/completions') {
      chat(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(err) } }));
      });
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get stats() {
      return stats;
    },
    reset() {
      stats = fresh();
      const now = Date.now();
      for (const b of Object.values(buckets)) if (b) Object.assign(b, { level: b.limit, at: now });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function fresh(): RateLimitedStats {
  return {
    requests: 0,
    answered: 0,
    rateLimited: 0,
    tokens: 0,
    inFlight: 0,
    maxInFlight: 0,
    maxInFlightAfterRefusal: [],
    firstAt: 0,
    lastAt: 0,
  };
}

/** A judge's answer, its five scores taken from the request's hash. */
function judgeReply(hash: Buffer): string {
  const [format, factuality, consistency, realism, quality] = [...hash.subarray(0, 5)].map((b) => 1 + (b % 5));
  const scores = { format, factuality, consistency, realism, quality };
  return `<final_evaluation>${JSON.stringify({ scores, strengths: [], weaknesses: [] })}</final_evaluation>`;
}
