/*
 * The benchmark's stand-in for vLLM or a judge API: answers every chat
 * completion after a fixed latency, so the only thing that can make a run
 * slower than N × latency ÷ concurrency is the client. It keeps no request
 * bodies (test/support/openai-server.ts logs each one, which at 400 MB per
 * stage would make the server the thing being measured), only counters.
 *
 * Requests under /judge/v1 get a judge reply, others a world-model reply.
 *
 * With `cache` set it simulates a serving engine's prefix cache
 * (prefix-cache.ts): each request's prompt (its body from the messages on,
 * hashed as it arrives) is looked up when the request has arrived and cached
 * when it is answered; the latency grows with the bytes not found in the cache; usage
 * reports `prompt_tokens_details.cached_tokens` or, to stand in for servers
 * that do not, leaves it out. It then keeps every request's block hashes
 * (about 60 bytes per 4 KB of prompt) to work out the one-at-a-time minimum.
 *
 * Run as a child process (`node --import tsx bench/endpoint.ts`): it prints
 * one JSON line `{"url": ...}` on stdout once listening, serves its
 * counters at GET /bench/stats, zeroes them at POST /bench/reset, and exits
 * on SIGTERM or when its stdin closes (so it never outlives the benchmark).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BLOCK_BYTES, oneAtATime, PrefixCache, prefixTreeOrder, RequestHasher, type Blocks } from './prefix-cache.js';

export interface EndpointStats {
  requests: number;
  judgeReplies: number;
  worldModelReplies: number;
  modelListRequests: number;
  inFlight: number;
  maxInFlight: number;
  bytesIn: number;
  /** ms since the epoch of the first chat request and the last answer. */
  firstAt: number;
  lastAt: number;
  /** Time-weighted mean of requests in flight between the first request and the last answer. */
  meanInFlight: number;
  /** CPU this server used since the last reset: it shares the machine with the client being measured. */
  cpuS: number;
  /** With a simulated prefix cache: prompt bytes received, bytes not found in the cache, cached tokens reported. */
  promptBytes: number;
  prefilledBytes: number;
  cachedTokens: number;
  /** Bytes the same requests prefill when sent one at a time, each after the prompts it extends. */
  minimumPrefilledBytes: number;
}

export interface CacheSimulation {
  blockBytes: number;
  /** Blocks the cache holds; Infinity: no eviction. */
  capacityBlocks: number;
  /** Extra latency per 10^6 bytes prefilled. */
  msPerMB: number;
  /** Whether usage carries prompt_tokens_details.cached_tokens. */
  reportCached: boolean;
}

export const JUDGE_REPLY =
  '<final_evaluation>{"scores": {"format": 4, "factuality": 3, "consistency": 4, "realism": 5, "quality": 4}, "strengths": [], "weaknesses": []}</final_evaluation>';
const WORLD_REPLY =
  '<think>The command lists the folder.</think>\n<predicted_observation>total 8\n-rw-r--r-- 1 root root 42 Jun 24 12:00 notes.txt</predicted_observation>';

export function startBenchEndpoint(opts: {
  latencyMs: number;
  port?: number;
  models?: string[];
  cache?: CacheSimulation;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const models = opts.models ?? ['bench'];
  // Written as a stream: a synchronous append per request would stall the one thread whose stalls it records.
  const trace = process.env.BENCH_TRACE ? createWriteStream(process.env.BENCH_TRACE, { flags: 'a' }) : undefined;
  const sim = opts.cache;
  let cache = sim && new PrefixCache(sim);
  let received: Blocks[] = [];
  let s = fresh();
  let area = 0; // integral of inFlight over time, ms
  let areaSince = 0;
  let cpuSince = process.cpuUsage();

  function fresh(): EndpointStats {
    return {
      requests: 0,
      judgeReplies: 0,
      worldModelReplies: 0,
      modelListRequests: 0,
      inFlight: 0,
      maxInFlight: 0,
      bytesIn: 0,
      firstAt: 0,
      lastAt: 0,
      meanInFlight: 0,
      cpuS: 0,
      promptBytes: 0,
      prefilledBytes: 0,
      cachedTokens: 0,
      minimumPrefilledBytes: 0,
    };
  }
  const moveInFlight = (delta: number) => {
    const now = Date.now();
    if (areaSince) area += s.inFlight * (now - areaSince);
    areaSince = now;
    s.inFlight += delta;
    if (s.inFlight > s.maxInFlight) s.maxInFlight = s.inFlight;
  };

  const send = (res: ServerResponse, status: number, body: string) => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const chat = (req: IncomingMessage, res: ServerResponse, judge: boolean) => {
    s.requests++;
    if (!s.firstAt) s.firstAt = Date.now();
    moveInFlight(+1);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      moveInFlight(-1);
      s.lastAt = Date.now();
    };
    res.on('close', finish);
    const arrivedAt = Date.now();
    let bytes = 0;
    const hasher = sim && new RequestHasher(sim.blockBytes);
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hasher?.update(chunk);
    });
    req.on('error', finish);
    req.on('end', () => {
      const bodyAt = Date.now();
      // BENCH_TRACE=FILE: one line per request, [arrived, body in, closed] in ms since the epoch and its bytes, to see where slots sat empty.
      if (trace) res.on('close', () => trace.write(`${JSON.stringify([arrivedAt, bodyAt, Date.now(), bytes])}\n`));
      s.bytesIn += bytes;
      let promptBytes = bytes;
      let cachedBytes = 0;
      let delay = opts.latencyMs;
      let blocks: Blocks | undefined;
      if (cache && sim && hasher) {
        blocks = hasher.digest();
        promptBytes = blocks.bytes;
        cachedBytes = cache.lookup(blocks);
        received.push(blocks);
        s.promptBytes += promptBytes;
        s.prefilledBytes += promptBytes - cachedBytes;
        delay += (sim.msPerMB * (promptBytes - cachedBytes)) / 1e6;
      }
      const cachedTokens = Math.floor(cachedBytes / 4);
      setTimeout(() => {
        if (blocks) cache?.insert(blocks);
        if (res.destroyed) return;
        const content = judge ? JUDGE_REPLY : WORLD_REPLY;
        if (judge) s.judgeReplies++;
        else s.worldModelReplies++;
        const promptTokens = Math.ceil(promptBytes / 4);
        const completionTokens = Math.ceil(content.length / 4);
        const details = sim?.reportCached ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {};
        if (sim?.reportCached) s.cachedTokens += cachedTokens;
        send(
          res,
          200,
          JSON.stringify({
            id: `chatcmpl-bench-${s.requests}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: models[0],
            choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: completionTokens,
              total_tokens: promptTokens + completionTokens,
              ...details,
            },
          }),
        );
      }, delay);
    });
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/judge/v1/chat/completions')) {
      chat(req, res, path.startsWith('/judge/'));
      return;
    }
    req.resume();
    if (req.method === 'GET' && (path === '/v1/models' || path === '/judge/v1/models')) {
      s.modelListRequests++;
      const created = Math.floor(Date.now() / 1000);
      send(res, 200, JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'bench' })) }));
    } else if (req.method === 'GET' && path === '/bench/stats') {
      moveInFlight(0);
      const span = (s.inFlight ? Date.now() : s.lastAt) - s.firstAt;
      const cpu = process.cpuUsage(cpuSince);
      const minimumPrefilledBytes = sim ? oneAtATime(prefixTreeOrder(received), sim).prefilled : 0;
      send(
        res,
        200,
        JSON.stringify({ ...s, meanInFlight: span > 0 ? area / span : 0, cpuS: (cpu.user + cpu.system) / 1e6, minimumPrefilledBytes }),
      );
    } else if (req.method === 'POST' && path === '/bench/reset') {
      const inFlight = s.inFlight;
      s = fresh();
      s.inFlight = inFlight;
      area = 0;
      areaSince = 0;
      cpuSince = process.cpuUsage();
      cache = sim && new PrefixCache(sim);
      received = [];
      send(res, 200, '{}');
    } else {
      send(res, 404, JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', code: 'not_found' } }));
    }
  });
  // A run keeps its connections between requests; the client's keep-alive (30 s) must not outlive ours.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => (trace ? trace.end(() => r()) : r()));
          }),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 1000);
  const port = Number(process.env.BENCH_PORT ?? 0);
  const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
  const cache: CacheSimulation | undefined =
    process.env.BENCH_CACHE === '1'
      ? {
          blockBytes: env('BENCH_CACHE_BLOCK_BYTES', DEFAULT_BLOCK_BYTES),
          capacityBlocks: env('BENCH_CACHE_BLOCKS', 0) || Infinity,
          msPerMB: env('BENCH_PREFILL_MS_PER_MB', 1000),
          reportCached: process.env.BENCH_CACHED_TOKENS !== 'absent',
        }
      : undefined;
  const ep = await startBenchEndpoint({ latencyMs, port, cache });
  process.stdout.write(`${JSON.stringify({ url: ep.url })}\n`);
  const stop = () => void ep.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}
