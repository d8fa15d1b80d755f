/*
 * A local OpenAI-compatible chat server for tests, the offline demo and the
 * benchmark. It speaks the subset of the protocol the official `openai`
 * client uses, streamed (server-sent events, `stream_options.include_usage`)
 * or not, and misbehaves on demand (rate limits, 5xx, resets,
 * hangs, broken JSON, empty and truncated answers, no choices, plain JSON
 * for a streamed request) so retry, resume and
 * accounting code can be exercised without the internet.
 *
 * It imports nothing from the project so any script run under tsx can use it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mulberry32 } from '../../src/core/score/bootstrap.js';

export interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string; [k: string]: unknown }> | null;
  [k: string]: unknown;
}

/** The parsed request body; fields the server does not know (extra_body, ...) are kept. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  [k: string]: unknown;
}

export interface UsageOverride {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown };
  [k: string]: unknown;
}

export type Reply =
  | string
  | {
      content: string | null;
      reasoning_content?: string;
      /** OpenAI's refusal, sent with `content: null` when the model declines. */
      refusal?: string;
      finish_reason?: string;
      /** Replaces the estimated usage; `null` leaves `usage` out, as some servers do. */
      usage?: UsageOverride | null;
    };

export interface ReplyContext {
  requestNo: number;
}

export type ReplyFn = (req: ChatRequest, ctx: ReplyContext) => Reply | Promise<Reply>;

/**
 * `no-choices`: a 200 completion whose `choices` is empty (a gateway that lost the answer); `unstreamed`: plain JSON even when
 * asked to stream; `400`: a refusal of the request (its `message`: a context too long, an unknown field).
 */
export const FAULT_KINDS = [
  '400',
  '429',
  '500',
  '503',
  'reset',
  'hang',
  'malformed',
  'empty',
  'length',
  'no-choices',
  'unstreamed',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * A fault, optionally with details; `retryAfter` (seconds, `null` = no header) and `code` (the error's
 * type and code, e.g. OpenAI's `insufficient_quota`, instead of `rate_limit_exceeded`) only matter for 429.
 */
export type Fault = FaultKind | { kind: FaultKind; retryAfter?: number | null; message?: string; code?: string };

/** Decides a fault for one request from its body; `undefined` falls through to the random rates. */
export type FaultScript = (req: ChatRequest, requestNo: number) => Fault | undefined;

export interface ServerOptions {
  /** Model ids served by /v1/models and accepted by chat completions. Default `['test-model']`. */
  models?: string[];
  /** Accept any model name in chat completions (the list still shows `models`). */
  anyModel?: boolean;
  /** Serve GET /v1/models; false answers 404 there, as some servers lack the route. Default true. */
  modelsRoute?: boolean;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  reply?: ReplyFn;
  /** Delay before answering (also before faults), per request. */
  latencyMs?: number | ((req: ChatRequest, requestNo: number) => number);
  /** Probability per request of each fault, drawn from a seeded PRNG. Sum should stay <= 1. */
  faultRates?: Partial<Record<FaultKind, number>>;
  /** Per-request faults; they win over `faultRates`. */
  faults?: FaultScript;
  /** Seed for `faultRates`. Default 1. */
  seed?: number;
  /** Default Retry-After (seconds) on 429; `null` sends no header. Default 0. */
  retryAfterSec?: number | null;
}

export type Outcome =
  | 'ok'
  | FaultKind
  | 'unauthorized'
  | 'model_not_found'
  | 'bad_request'
  | 'handler_error'
  /** The client went away before the answer (its timeout, an abort). */
  | 'client_closed'
  | 'pending';

export interface LogEntry {
  requestNo: number;
  model: string;
  /** Hash of model + messages: the same logical request has the same hash on every attempt. */
  hash: string;
  outcome: Outcome;
  request: ChatRequest | undefined;
  receivedAt: number;
  /** Milliseconds from arrival to the outcome. */
  ms: number;
}

export interface ServerStats {
  /** Chat completion requests received (all outcomes). */
  requests: number;
  /** GET /v1/models requests received. */
  modelListRequests: number;
  /** Chat completions answered with a real reply (faults excluded). */
  successes: number;
  faults: Record<FaultKind, number>;
  unauthorized: number;
  modelNotFound: number;
  badRequest: number;
  handlerErrors: number;
  clientClosed: number;
  inFlight: number;
  maxInFlight: number;
}

export interface FakeServer {
  /** Base URL ending in /v1, as users pass it to awb. */
  url: string;
  readonly stats: ServerStats;
  readonly log: LogEntry[];
  /** Hashes (model + messages) answered successfully more than once, with their count. */
  repeatedSuccesses(): Array<{ hash: string; count: number }>;
  /** Merges options into the live ones; a new `seed` restarts the PRNG. */
  setOptions(partial: Partial<ServerOptions>): void;
  /** Stops listening and destroys every open connection, hung ones included. */
  close(): Promise<void>;
}

const DEFAULT_MODELS = ['test-model'];
/** A streamed reply's content (and reasoning) is sent in this many pieces. */
const STREAM_PIECES = 8;

export function messageText(m: ChatMessage | undefined): string {
  if (!m || m.content == null) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

export function lastUserText(req: ChatRequest): string {
  const msgs = Array.isArray(req.messages) ? req.messages : [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i]?.role === 'user') return messageText(msgs[i]);
  }
  return '';
}

/** Identity of a logical request: sampling settings are left out so a retry with other settings still counts as the same work. */
export function requestHash(req: Pick<ChatRequest, 'model' | 'messages'>): string {
  return createHash('sha256')
    .update(JSON.stringify({ model: req.model, messages: req.messages }))
    .digest('hex')
    .slice(0, 16);
}

const defaultReply: ReplyFn = (req) => `echo(${req.model}): ${lastUserText(req).slice(0, 200)}`;

/** About four characters a token, as OpenAI estimates. */
export function estimateTokens(s: string): number {
  return Math.ceil(s.length / 4);
}

function errorBody(message: string, type: string, code: string | null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function pickRandomFault(rates: Partial<Record<FaultKind, number>> | undefined, u: number): FaultKind | undefined {
  if (!rates) return undefined;
  let acc = 0;
  for (const kind of FAULT_KINDS) {
    acc += rates[kind] ?? 0;
    if (u < acc) return kind;
  }
  return undefined;
}

export async function startOpenAIServer(initial: ServerOptions = {}): Promise<FakeServer> {
  const opts: ServerOptions = { ...initial };
  let random = mulberry32(opts.seed ?? 1);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const successCounts = new Map<string, number>();
  const log: LogEntry[] = [];
  const stats: ServerStats = {
    requests: 0,
    modelListRequests: 0,
    successes: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    unauthorized: 0,
    modelNotFound: 0,
    badRequest: 0,
    handlerErrors: 0,
    clientClosed: 0,
    inFlight: 0,
    maxInFlight: 0,
  };
  let closing = false;
  let completionSeq = 0;

  // Timers, not busy waits: dozens of delayed requests must overlap.
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const authorized = (req: IncomingMessage): boolean => opts.apiKey === undefined || req.headers.authorization === `Bearer ${opts.apiKey}`;

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  async function handleChat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestNo = ++stats.requests;
    // Drawn on arrival, before any await, so the fault sequence depends only on arrival order and seed.
    const u = random();
    const entry: LogEntry = { requestNo, model: '', hash: '', outcome: 'pending', request: undefined, receivedAt: Date.now(), ms: 0 };
    log.push(entry);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      entry.outcome = outcome;
      entry.ms = Date.now() - entry.receivedAt;
    };
    res.on('close', () => {
      stats.inFlight--;
      // A hung request keeps its 'hang' outcome; anything else still pending was abandoned by the client.
      if (!settled) {
        stats.clientClosed++;
        settle('client_closed');
      }
    });

    const raw = await readBody(req).catch(() => undefined);
    if (raw === undefined) return;

    if (!authorized(req)) {
      stats.unauthorized++;
      settle('unauthorized');
      return send(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }

    let body: ChatRequest;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('body is not a JSON object');
      body = parsed as ChatRequest;
      if (typeof body.model !== 'string' || !Array.isArray(body.messages)) throw new Error("'model' and 'messages' are required");
    } catch (err) {
      stats.badRequest++;
      settle('bad_request');
      return send(res, 400, errorBody(`Invalid request body: ${(err as Error).message}`, 'invalid_request_error', null));
    }
    entry.model = body.model;
    entry.hash = requestHash(body);
    entry.request = body;

    if (!opts.anyModel && !(opts.models ?? DEFAULT_MODELS).includes(body.model)) {
      stats.modelNotFound++;
      settle('model_not_found');
      return send(
        res,
        404,
        errorBody(
          `The model \`${body.model}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model_not_found',
        ),
      );
    }

    const latency = typeof opts.latencyMs === 'function' ? opts.latencyMs(body, requestNo) : (opts.latencyMs ?? 0);
    // A streamed generation spends its latency between chunks, as a server decoding token by token does.
    await sleep(body.stream ? 0 : latency);
    if (res.destroyed || closing) return; // client gone while we "worked": the close handler already logged it

    const scripted = opts.faults?.(body, requestNo);
    const fault = scripted ?? pickRandomFault(opts.faultRates, u);
    if (fault !== undefined) {
      const kind = typeof fault === 'string' ? fault : fault.kind;
      const detail = typeof fault === 'string' ? {} : fault;
      stats.faults[kind]++;
      settle(kind);
      return answerFault(res, body, kind, detail);
    }

    let reply: Reply;
    try {
      reply = await (opts.reply ?? defaultReply)(body, { requestNo });
    } catch (err) {
      stats.handlerErrors++;
      settle('handler_error');
      return send(res, 500, errorBody(`reply handler failed: ${(err as Error).message}`, 'server_error', null));
    }
    if (res.destroyed) return;
    const r = typeof reply === 'string' ? { content: reply } : reply;
    stats.successes++;
    successCounts.set(entry.hash, (successCounts.get(entry.hash) ?? 0) + 1);
    const full = completion(body, r.content, r.finish_reason ?? 'stop', r.reasoning_content, r.usage, r.refusal);
    if (body.stream) return streamCompletion(res, body, full, latency, () => settle('ok'));
    settle('ok');
    send(res, 200, JSON.stringify(full));
  }

  /** A completion as server-sent events: role, reasoning then content in pieces spread over `latency`, finish, usage, [DONE]. */
  async function streamCompletion(
    res: ServerResponse,
    body: ChatRequest,
    full: Record<string, unknown>,
    latency: number,
    done: () => void,
  ): Promise<void> {
    const choice = (full.choices as Array<{ message: Record<string, unknown>; finish_reason: string }>)[0]!;
    const base = { id: full.id, object: 'chat.completion.chunk', created: full.created, model: full.model };
    const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`;
    const delta = (d: Record<string, unknown>, finish: string | null = null) =>
      event([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
    const pieces: Record<string, unknown>[] = [];
    const split = (field: string, text: string) => {
      const n = Math.max(1, Math.min(STREAM_PIECES, text.length));
      for (let i = 0; i < n; i++)
        pieces.push({ [field]: text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n)) });
    };
    if (typeof choice.message.reasoning_content === 'string') split('reasoning_content', choice.message.reasoning_content);
    if (typeof choice.message.content === 'string') split('content', choice.message.content);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(delta({ role: 'assistant', content: '' }));
    for (const piece of pieces) {
      await sleep(latency / pieces.length);
      if (res.destroyed || closing) return;
      res.write(delta(piece));
    }
    res.write(delta({}, choice.finish_reason));
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage && full.usage) res.write(event([], { usage: full.usage }));
    done();
    res.end('data: [DONE]\n\n');
  }

  function completion(
    body: ChatRequest,
    content: string | null,
    finishReason: string,
    reasoning: string | undefined,
    usageOverride: UsageOverride | null | undefined,
    refusal?: string,
  ): Record<string, unknown> {
    const message: Record<string, unknown> = { role: 'assistant', content };
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    if (refusal !== undefined) message.refusal = refusal;
    const promptTokens = estimateTokens(body.messages.map((m) => messageText(m)).join('\n'));
    const reasoningTokens = reasoning ? estimateTokens(reasoning) : 0;
    const completionTokens = estimateTokens(content ?? '') + reasoningTokens;
    const usage: UsageOverride = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(reasoning ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
      ...usageOverride,
    };
    if (usageOverride && usageOverride.total_tokens === undefined) {
      usage.total_tokens = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
    }
    const out: Record<string, unknown> = {
      id: `chatcmpl-test-${++completionSeq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    };
    if (usageOverride !== null) out.usage = usage;
    return out;
  }

  function answerFault(
    res: ServerResponse,
    body: ChatRequest,
    kind: FaultKind,
    detail: { retryAfter?: number | null; message?: string; code?: string },
  ): void {
    switch (kind) {
      case '400':
        return send(res, 400, errorBody(detail.message ?? 'Invalid request.', 'invalid_request_error', null));
      case '429': {
        const after = detail.retryAfter === undefined ? (opts.retryAfterSec ?? 0) : detail.retryAfter;
        const headers: Record<string, string> = after === null ? {} : { 'retry-after': String(after) };
        return send(
          res,
          429,
          errorBody(
            detail.message ?? 'Rate limit reached for requests. Please try again later.',
            detail.code ?? 'requests',
            detail.code ?? 'rate_limit_exceeded',
          ),
          headers,
        );
      }
      case '500':
        return send(res, 500, errorBody(detail.message ?? 'The server had an error while processing your request.', 'server_error', null));
      case '503':
        return send(
          res,
          503,
          errorBody(detail.message ?? 'The engine is currently overloaded, please try again later.', 'server_error', 'service_unavailable'),
        );
      case 'reset':
        res.socket?.destroy();
        return;
      case 'hang':
        // Answer nothing; the client's timeout (or close()) ends it.
        return;
      case 'malformed': {
        const full = JSON.stringify(completion(body, 'this reply was cut short', 'stop', undefined, undefined));
        return send(res, 200, full.slice(0, Math.floor(full.length / 2)));
      }
      case 'empty':
        return send(res, 200, JSON.stringify(completion(body, '', 'stop', undefined, undefined)));
      case 'no-choices':
        return send(res, 200, JSON.stringify({ ...completion(body, null, 'stop', undefined, undefined), choices: [] }));
      case 'unstreamed':
        return send(res, 200, JSON.stringify(completion(body, 'an answer', 'stop', undefined, undefined)));
      case 'length': {
        // A reasoning model that spent the whole budget thinking: no answer, all tokens used.
        const budget = body.max_tokens ?? body.max_completion_tokens ?? 32768;
        const reasoning = 'Let me think about what the environment would show next. First, ';
        return send(
          res,
          200,
          JSON.stringify(
            completion(body, '', 'length', reasoning, {
              completion_tokens: budget,
              completion_tokens_details: { reasoning_tokens: budget },
            }),
          ),
        );
      }
    }
  }

  function handleModels(req: IncomingMessage, res: ServerResponse): void {
    stats.modelListRequests++;
    if (!authorized(req)) {
      stats.unauthorized++;
      return send(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (opts.modelsRoute === false) return notFound(res);
    const created = Math.floor(Date.now() / 1000);
    const data = (opts.models ?? DEFAULT_MODELS).map((id) => ({ id, object: 'model', created, owned_by: 'awb-test' }));
    send(res, 200, JSON.stringify({ object: 'list', data }));
  }

  function notFound(res: ServerResponse): void {
    send(res, 404, errorBody('Not found', 'invalid_request_error', 'not_found'));
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      handleChat(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, 500, errorBody(`test server bug: ${String(err)}`, 'server_error', null));
      });
    } else if (req.method === 'GET' && path === '/v1/models') {
      handleModels(req, res);
    } else {
      req.resume();
      notFound(res);
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    stats,
    log,
    repeatedSuccesses: () => [...successCounts].filter(([, count]) => count > 1).map(([hash, count]) => ({ hash, count })),
    setOptions(partial) {
      Object.assign(opts, partial);
      if (partial.seed !== undefined) random = mulberry32(partial.seed);
    },
    close() {
      closing = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const socketsClosed = [...sockets].map(
        (s) =>
          new Promise<void>((resolve) => {
            s.once('close', () => resolve());
            s.destroy();
          }),
      );
      // One more turn so the responses' own 'close' handlers (in-flight accounting) have run too.
      return Promise.all([serverClosed, ...socketsClosed]).then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    },
  };
}

/**
 * Answers from recorded replies: the first entry whose `match` occurs in the
 * last user message wins, so entries for later turns of a trajectory (whose
 * messages also quote earlier actions) must come before earlier turns.
 */
export function replayHandler(entries: Array<{ match: string; reply: string }>, fallback?: string): ReplyFn {
  return (req) => {
    const text = lastUserText(req);
    const hit = entries.find((e) => text.includes(e.match));
    if (hit) return hit.reply;
    if (fallback !== undefined) return fallback;
    throw new Error(`no recorded reply matches the last user message (${JSON.stringify(text.slice(0, 120))}...)`);
  };
}

/** Reads `{match, reply}` JSON lines; splits on `\n` only, since recorded text may hold raw U+2028. */
export async function loadReplay(path: string): Promise<Array<{ match: string; reply: string }>> {
  const text = await readFile(path, 'utf8');
  const out: Array<{ match: string; reply: string }> = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      throw new Error(`${path}:${i + 1}: not JSON: ${(err as Error).message}`, { cause: err });
    }
    const e = obj as { match?: unknown; reply?: unknown };
    if (typeof e.match !== 'string' || !e.match || typeof e.reply !== 'string') {
      throw new Error(`${path}:${i + 1}: expected {"match": non-empty string, "reply": string}`);
    }
    out.push({ match: e.match, reply: e.reply });
  });
  return out;
}
