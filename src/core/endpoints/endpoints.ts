import OpenAI, { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { chatBody } from './chat-body.js';
import { nodeFetch, standIn } from './http-fetch.js';
import { UserError } from '../errors.js';
import { brief, shownUrl, splitQuery, urlSecrets, visible } from '../shown.js';
import type { ChatMessage } from '../infer/index.js';
import type { BodyPlan } from './request-body.js';
import type { RowText } from '../rows/index.js';

export interface PoolOptions {
  /** Base URLs, e.g. http://host:8000/v1; requests go to the one with the fewest in flight. */
  urls: string[];
  apiKey: string;
  model: string;
  /** Per HTTP attempt. */
  timeoutMs: number;
  /** Retries per request inside the openai client (429 with Retry-After, 5xx, resets, timeouts). */
  maxRetries: number;
  /** Consecutive failed attempts after which an endpoint is set aside (only with several endpoints). */
  setAsideAfter?: number;
  /** How long an endpoint is set aside at first; doubles each time it fails again. */
  cooldownMs?: number;
  /** Used by the role name in messages: "world model" or "judge". */
  role: string;
}

export interface ChatResult {
  completion: ChatCompletion;
  endpoint: string;
  latencyMs: number;
}

export interface EndpointStats {
  requests: number;
  failures: number;
}

/** Raised when continuing would only repeat the same failure for every row: bad key, no such model, endpoint gone. */
export class FatalEndpointError extends UserError {
  constructor(message: string) {
    super(message, 3);
    this.name = 'FatalEndpointError';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '<invalid URL>';
  }
}

interface Endpoint {
  url: string;
  shown: string;
  client: OpenAI;
  inFlight: number;
  consecutiveFailures: number;
  setAsideUntil: number;
  cooldownMs: number;
  stats: EndpointStats;
}

/** The models check is a small request: a server that takes longer to answer it is stuck, not busy. */
const PREFLIGHT_TIMEOUT_MS = 10_000;

/** The preflight's words for a server that took the request and never answered (tried twice). */
function noAnswer(what: string, ms: number): string {
  return `${what} accepted the connection but did not answer the models check within ${ms / 1000} s (tried twice): is it overloaded, stuck or still loading? (--no-preflight skips this check)`;
}

/** A synthetic reply that tells the openai client not to retry: the pool moves the request to another endpoint instead. */
const SET_ASIDE_STATUS = 599;

/**
 * One or more OpenAI-compatible endpoints serving the same model. Retries and
 * backoff are the openai client's own; the pool adds only what the client
 * cannot do: spreading load over replicas and setting aside one that keeps
 * failing. Health is tracked per HTTP attempt through a fetch wrapper, so the
 * client's internal retries count too.
 */
export class EndpointPool {
  private readonly endpoints: Endpoint[];
  private readonly setAsideAfter: number;
  /** What must never be shown: the key, and what the URLs carry in their user info and query. */
  private readonly secrets: string[];

  constructor(private readonly opts: PoolOptions) {
    this.setAsideAfter = opts.setAsideAfter ?? 3;
    this.secrets = [opts.apiKey, ...opts.urls.flatMap(urlSecrets)];
    const send = nodeFetch();
    this.endpoints = opts.urls.map((url) => {
      const ep: Endpoint = {
        url,
        shown: shownUrl(url),
        inFlight: 0,
        consecutiveFailures: 0,
        setAsideUntil: 0,
        cooldownMs: opts.cooldownMs ?? 30_000,
        stats: { requests: 0, failures: 0 },
        client: undefined as unknown as OpenAI,
      };
      const { base, query } = splitQuery(url);
      ep.client = new OpenAI({
        baseURL: base,
        defaultQuery: query,
        apiKey: opts.apiKey,
        timeout: opts.timeoutMs,
        maxRetries: opts.maxRetries,
        fetch: this.trackingFetch(ep, send),
      });
      return ep;
    });
  }

  private trackingFetch(ep: Endpoint, send: ReturnType<typeof nodeFetch>): typeof globalThis.fetch {
    const several = () => this.endpoints.length > 1;
    return (async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
      if (several() && ep.setAsideUntil > Date.now()) {
        return new Response(JSON.stringify({ error: { message: `${ep.shown} is set aside after repeated failures` } }), {
          status: SET_ASIDE_STATUS,
          headers: { 'content-type': 'application/json', 'x-should-retry': 'false' },
        });
      }
      ep.stats.requests++;
      const started = performance.now();
      try {
        const res = await send(input, init);
        if (res.status >= 500 || res.status === 429) this.noteFailure(ep);
        else this.noteSuccess(ep);
        return res;
      } catch (err) {
        // The client cancels an attempt through the same signal on its own timeout and on the
        // caller's abort; only the timeout speaks against the endpoint, and it comes once the time is up.
        const timedOut = performance.now() - started >= this.opts.timeoutMs * 0.9;
        if (!init?.signal?.aborted || timedOut) this.noteFailure(ep);
        throw err;
      }
    }) as typeof globalThis.fetch;
  }

  private noteFailure(ep: Endpoint): void {
    ep.stats.failures++;
    ep.consecutiveFailures++;
    if (this.endpoints.length > 1 && ep.consecutiveFailures >= this.setAsideAfter) {
      ep.setAsideUntil = Date.now() + ep.cooldownMs;
      ep.cooldownMs = Math.min(ep.cooldownMs * 2, 10 * 60_000);
      ep.consecutiveFailures = 0;
    }
  }

  private noteSuccess(ep: Endpoint): void {
    ep.consecutiveFailures = 0;
    ep.cooldownMs = this.opts.cooldownMs ?? 30_000;
  }

  /** The healthy endpoint with the fewest requests in flight; when all are set aside, the one back soonest. */
  private pick(exclude: Set<Endpoint>): Endpoint {
    const now = Date.now();
    const candidates = this.endpoints.filter((e) => !exclude.has(e));
    const pool = candidates.length ? candidates : this.endpoints;
    const healthy = pool.filter((e) => e.setAsideUntil <= now);
    if (healthy.length) return healthy.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    const soonest = pool.reduce((a, b) => (b.setAsideUntil < a.setAsideUntil ? b : a));
    soonest.setAsideUntil = 0; // a probe: its result decides whether it stays aside
    return soonest;
  }

  /** The request body for these messages, for this pool's model. */
  encode(messages: ChatMessage[], params: Record<string, unknown>, text: Pick<RowText, 'locate'>): BodyPlan {
    return chatBody(this.opts.model, messages, params, text);
  }

  /**
   * Sends one chat completion. Errors that would repeat for every row
   * (rejected key, unknown model) become FatalEndpointError; others are thrown
   * as they are, after the client's retries and, with several endpoints, one
   * try on each other endpoint.
   */
  async chat(plan: BodyPlan, signal?: AbortSignal): Promise<ChatResult> {
    const body = standIn(plan);
    const tried = new Set<Endpoint>();
    for (;;) {
      const ep = this.pick(tried);
      tried.add(ep);
      ep.inFlight++;
      const started = performance.now();
      try {
        const completion = await ep.client.post<ChatCompletion>('/chat/completions', {
          body,
          headers: { 'content-type': 'application/json' },
          signal,
        });
        if (!completion || !Array.isArray(completion.choices)) {
          throw new MalformedReplyError(`${ep.shown} returned a reply without choices`);
        }
        return { completion, endpoint: ep.shown, latencyMs: Math.round(performance.now() - started) };
      } catch (err) {
        // The input file could not be read back for the body: no endpoint can help with that.
        if (err instanceof APIConnectionError && err.cause instanceof UserError) throw err.cause;
        const fatal = this.fatalFor(err, ep);
        if (fatal) throw fatal;
        if (err instanceof APIUserAbortError || signal?.aborted) throw err;
        if (tried.size >= this.endpoints.length) throw err;
      } finally {
        ep.inFlight--;
      }
    }
  }

  private fatalFor(err: unknown, ep: Endpoint): FatalEndpointError | undefined {
    if (!(err instanceof APIError) || err instanceof APIConnectionError) return undefined;
    const what = `${this.opts.role} endpoint ${ep.shown}`;
    if (err.status === 401) return new FatalEndpointError(`${what} rejected the API key (401 Unauthorized)`);
    if (err.status === 403) return new FatalEndpointError(`${what} refused access (403 Forbidden): ${this.describe(err)}`);
    if (err.status === 404) {
      return new FatalEndpointError(
        `${what} does not know model "${visible(this.opts.model)}" or the chat completions route (404): ${this.describe(err)}`,
      );
    }
    return undefined;
  }

  /** An error as one line for files and the terminal, with the API key scrubbed: some servers echo it back. */
  describe(err: unknown): string {
    return brief(messageOf(err), this.secrets);
  }

  /**
   * Checks before any row is sent that each endpoint answers and serves the
   * model. A server without a models route (404) is given the benefit of the doubt.
   */
  async preflight(): Promise<void> {
    const preflightMs = Math.min(this.opts.timeoutMs, PREFLIGHT_TIMEOUT_MS);
    await Promise.all(
      this.endpoints.map(async (ep) => {
        const what = `${this.opts.role} endpoint ${ep.shown}`;
        let ids: string[];
        try {
          const page = await ep.client.models.list({ maxRetries: 1, timeout: preflightMs });
          ids = page.data.map((m) => m.id);
        } catch (err) {
          if (err instanceof APIConnectionTimeoutError) throw new FatalEndpointError(noAnswer(what, preflightMs));
          if (err instanceof APIConnectionError) {
            const cause = (err.cause as { code?: string } | undefined)?.code;
            throw new FatalEndpointError(
              `cannot reach ${what}${cause ? ` (${cause})` : ''}: is the server running and the URL right (it usually ends in /v1)?`,
            );
          }
          if (err instanceof APIError && (err.status === 404 || err.status === 405)) return;
          const fatal = this.fatalFor(err, ep);
          if (fatal) throw fatal;
          throw new FatalEndpointError(`${what} failed the models check: ${this.describe(err)}`);
        }
        if (ids.length && !ids.includes(this.opts.model)) {
          const shown = brief(ids.slice(0, 8).join(', '), this.secrets, 1000) + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
          throw new FatalEndpointError(`${what} does not serve model "${visible(this.opts.model)}"; it serves: ${shown}`);
        }
      }),
    );
  }

  stats(): Record<string, EndpointStats> {
    const out: Record<string, EndpointStats> = {};
    for (const ep of this.endpoints) out[ep.shown] = { ...ep.stats };
    return out;
  }

  hosts(): string[] {
    return this.opts.urls.map(hostOf);
  }
}

/** A 200 whose body is not a chat completion. */
export class MalformedReplyError extends Error {
  override name = 'MalformedReplyError';
}

/** The message alone, without the request body or headers that error objects may carry. */
function messageOf(err: unknown): string {
  if (err instanceof APIError) return err.message;
  if (err instanceof Error) return `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`;
  return String(err);
}

/** Whether the error came from a reply the client could not read (bad JSON and the like), worth one more try. */
export function isMalformedReply(err: unknown): boolean {
  return err instanceof MalformedReplyError || err instanceof SyntaxError;
}
