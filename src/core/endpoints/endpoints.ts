import { setTimeout as sleep } from 'node:timers/promises';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, type ClientOptions } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { faultOf, UserError } from '../errors.js';
import { brief, shownUrl, splitQuery, urlSecrets, visible } from '../shown.js';
import {
  DEFAULT_DEAD,
  DEFAULT_HEALTH,
  afterConnectionFailure,
  afterFailure,
  afterSuccess,
  freshHealth,
  isDeadConnectionCode,
  pickEndpoint,
  setAside,
  poolUnreachable,
  type ConnectionStreak,
  type DeadPolicy,
  type Health,
  type HealthPolicy,
} from './health.js';
import { Client } from './client.js';
import { nodeFetch, replyFault } from './http-fetch.js';
import { collectStream, type StreamedReply } from './stream.js';
import {
  MAX_SERVER_WAIT_MS,
  afterRefusal,
  isRetryable,
  retryDelay,
  settingsRefused,
  unheededWaitS,
  type AttemptFailure,
  type RefusalStreak,
} from './retry.js';
import { jsonBytes, type JoinedText } from './json-bytes.js';
import { Limiter, type LimiterStats } from './limiter.js';
import type { Ticket } from './rate-limit.js';

export interface PoolOptions {
  /** Base URLs, e.g. http://host:8000/v1; requests go to the one with the fewest in flight. */
  urls: string[];
  apiKey: string;
  model: string;
  /** Per HTTP attempt, the whole reply included. */
  timeoutMs: number;
  /** Retries per request (429 with Retry-After, 5xx, resets, timeouts), on any endpoint. */
  maxRetries: number;
  /** A reply larger than this is a failed attempt. */
  maxReplyBytes: number;
  /** A reply that sends nothing for this long once it has started is a failed attempt. */
  idleMs?: number;
  /** Ask for server-sent events; `idleMs` is then the longest silence allowed between chunks. */
  stream?: boolean;
  health?: HealthPolicy;
  /** When the run stops because no endpoint can be reached. */
  dead?: DeadPolicy;
  /** Used in messages: "world model" or "judge". */
  role: string;
  /** What to do when the key is rejected (401): where the key came from, from the command. */
  keyHelp?: string;
  /** What to change when every request is refused for the settings (noteRefusal), for a refusal the command knows. */
  settingsFix?: (refusal: string) => string | undefined;
  /** Pace each endpoint to the rate limits its replies state (limiter.ts), `concurrency` (-c) its most attempts at once; undefined: no pacing. */
  pacing?: { concurrency: number };
}

/** A message as awb sends it: a role and plain text, whole or in pieces sent as one string. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | JoinedText;
}

/**
 * The request body of one chat completion, without the model (the pool's),
 * its messages plain text. Extra fields (e.g. from --extra-body) pass through.
 */
export type ChatRequest = Omit<ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'> & { messages: ChatMessage[] } & Record<
    string,
    unknown
  >;

/**
 * A chat request as the pool sends it (its model and, with --stream, the stream fields added),
 * encoded once by EndpointPool.encode: a row in flight holds these bytes, which every attempt
 * sends again, rather than the texts they were built from.
 */
export interface ChatBody {
  readonly json: Uint8Array;
}

export interface ChatResult {
  completion: ChatCompletion;
  endpoint: string;
  latencyMs: number;
  /** Streamed requests: time to the first content or reasoning token. */
  ttftMs?: number;
  /** Streamed requests: completion tokens per second after the first token. */
  decodeTokensPerS?: number;
  /** Answered by the Batch API (--batch), billed at its discount; latency is then 0: a batch has none per request. */
  batch?: true;
}

/** How a client reaches an endpoint: its base URL, the URL's query (a key, on some gateways) and the key. */
export type Connection = Pick<ClientOptions, 'baseURL' | 'defaultQuery' | 'apiKey'>;

/** Where --batch goes (EndpointPool.batchTarget): the first base URL, as the pool reaches it and as shown, and the model. */
export interface BatchTarget {
  connection: Connection;
  /** As shown (no credentials): recorded in the batch state and in rows as their endpoint. */
  endpoint: string;
  model: string;
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

/**
 * A refusal that would repeat for every request, worded once for online and
 * batch requests: `what` names the endpoint (or batch route), `said` gives
 * the server's reason as one line (asked for only when shown).
 */
export function refusedAccess(err: APIError, what: string, said: () => string, keyHelp?: string): FatalEndpointError | undefined {
  if (err.status === 401) return new FatalEndpointError(`${what} rejected the API key (401 Unauthorized)${keyHelp ? `: ${keyHelp}` : ''}`);
  if (err.status === 403) return new FatalEndpointError(`${what} refused access (403 Forbidden): ${said()}`);
  // OpenAI's 429 for an account out of credit: no wait ends it, and every row would spend its retries on it.
  if (err.status === 429 && err.code === 'insufficient_quota')
    return new FatalEndpointError(`${what} says the account has no quota left (429 insufficient_quota): ${said()}`);
  return undefined;
}

/** A 200 whose body is not a chat completion. */
class MalformedReplyError extends Error {
  override name = 'MalformedReplyError';
}

/**
 * Thrown by `chat` instead of an attempt once the run is stopping (Ctrl-C): a row whose request waits for
 * a retry or a re-ask is left for the next run, as one never sent, rather than keeping the stop waiting.
 */
class StoppedError extends Error {
  override name = 'StoppedError';
}

/** Whether a failed ask was the run ending (Ctrl-C), not the endpoint: the row is left for the next run. */
export function isStopped(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof StoppedError;
}

/** A streamed reply that stalled, broke or outlasted the timeout after it began: a failed attempt. */
class StreamFailure extends Error {
  override name = 'StreamFailure';
}

/**
 * What keeps a reply body from being a chat completion awb can record, or undefined when it is one,
 * whichever route it came by. An empty `choices` list carries no answer at all, not an empty one; a
 * choice without a message, or whose text fields are not text (`content: 42`), is no answer either,
 * nor is a generation the server aborted: each is a malformed reply, asked again, never written into a row as it came.
 */
export function replyProblem(body: unknown, secrets: readonly string[] = []): string | undefined {
  // The client hands on a body that is not JSON as its text; its start says what answered (a web page, a proxy).
  if (typeof body === 'string') return `a reply that is not JSON: "${brief(body, secrets, 60)}"`;
  const { choices, error } = typeof body === 'object' && body !== null ? (body as { choices?: unknown; error?: unknown }) : {};
  if (!Array.isArray(choices) || choices.length === 0) {
    // Some gateways (OpenRouter) send an upstream failure as a 200 whose body is an error: its reason is the one to show.
    const said = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error;
    return typeof said === 'string' ? `an error instead of a completion: ${brief(said, secrets)}` : 'a reply without choices';
  }
  const choice: unknown = choices[0];
  const message = typeof choice === 'object' && choice !== null ? (choice as { message?: unknown }).message : undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'a choice without a message';
  const fields: Record<string, unknown> = { ...message, finish_reason: (choice as { finish_reason?: unknown }).finish_reason };
  for (const name of ['content', 'reasoning_content', 'reasoning', 'finish_reason']) {
    const value = fields[name];
    if (value !== undefined && value !== null && typeof value !== 'string') return `a choice whose ${name} is not text`;
  }
  // SGLang (and some vLLM versions) end a generation they aborted so, its content partial or empty: it was never finished.
  if (fields.finish_reason === 'abort') return 'an aborted generation (finish_reason "abort")';
  return undefined;
}

/**
 * A reply body as JSON: the client parses a body only when its content type says JSON and hands on
 * any other as text, but a hand-written server or a proxy may send JSON as text/plain, or with no
 * type at all. Text that is not JSON stays text (a web page), for the caller to name.
 */
function jsonOfText(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

export function isChatCompletion(body: unknown): body is ChatCompletion {
  return replyProblem(body) === undefined;
}

/**
 * What a models list (`GET /models`) names: its model ids, or `notJson` for a page that is not JSON (a
 * body is read as JSON when it is, whatever its content type); `ids` is undefined for JSON without a
 * `data` list.
 */
export function modelIds(body: unknown): { ids?: string[]; notJson?: true } {
  const value = jsonOfText(body);
  if (typeof value === 'string') return { notJson: true };
  const data = typeof value === 'object' && value !== null ? (value as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return {};
  return {
    ids: data.flatMap((m: unknown) => {
      const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
      return typeof id === 'string' ? [id] : [];
    }),
  };
}

/** Whether the error came from a reply that is no chat completion, or that the client could not read (bad JSON and the like). */
/** A failed request as the retry policy sees it: a connection that failed (or a stream that broke), or a status; undefined for any other error. */
export function attemptFailure(err: unknown): AttemptFailure | undefined {
  if (err instanceof APIConnectionError || err instanceof StreamFailure) return { kind: 'connection' };
  if (err instanceof APIError && err.status !== undefined)
    return { kind: 'status', status: err.status, headers: err.headers ?? new Headers() };
  return undefined;
}

function isMalformedReply(err: unknown): boolean {
  return err instanceof MalformedReplyError || err instanceof SyntaxError;
}

interface Endpoint {
  shown: string;
  connection: Connection;
  client: Client;
  inFlight: number;
  health: Health;
  /** Failed connections in a row (health.ts); undefined once the server answers anything. */
  streak?: ConnectionStreak;
  stats: EndpointStats;
  /** Its rate-limit budget (each endpoint, each key, has its own); undefined without pacing. */
  limiter?: Limiter;
}

/** The system error code under a connection error (ECONNREFUSED, ...), if any. */
function causeCode(err: APIConnectionError): string | undefined {
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What to check when an endpoint cannot be reached: a TLS failure on an
 * https URL is most often a plain-HTTP server (vLLM, SGLang serve http).
 */
export function unreachableHint(url: string, code: string | undefined): string {
  if (url.startsWith('https:') && code !== undefined && (code === 'EPROTO' || code.startsWith('ERR_SSL_'))) {
    return 'the server does not speak TLS: is it a plain HTTP server (http://, not https://)?';
  }
  return 'is the server running and the URL right (it usually ends in /v1)?';
}

/** The models check is a small request: a server that takes longer to answer it is stuck, not busy. */
const PREFLIGHT_TIMEOUT_MS = 10_000;

/** The preflight's words for a server that took the request and never answered (tried twice). */
function noAnswer(what: string, ms: number): string {
  return `${what} accepted the connection but did not answer the models check within ${ms / 1000} s (tried twice): is it overloaded, stuck or still loading? (--no-preflight skips this check)`;
}

/** A reply that tells against the endpoint's health. */
function isFailureStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

const CHAT_ROUTE = '/chat/completions';

/**
 * The client's options for a body already encoded: the client sends a byte body as it is, and
 * reads the reply as `chat.completions.create` (a `post` to the same route) does.
 */
function requestOptions(body: ChatBody) {
  return { body: body.json, headers: { 'content-type': 'application/json' } };
}

/** Idle limit on a reply once it has started: a working server sends a finished completion in one go. */
const DEFAULT_IDLE_MS = 120_000;

/** How long a stream that sent its finish reason is waited for (its usage chunk, `[DONE]`): servers send them at once. */
const USAGE_GRACE_MS = 5_000;

/**
 * One or more OpenAI-compatible endpoints serving the same model, each an
 * openai client (its timeout, its errors; its fetch reads replies within
 * limits). The pool adds what the client cannot do: spreading attempts over
 * replicas, setting aside one that keeps failing (health.ts), retrying on
 * whichever endpoint is best placed (retry.ts), and stopping the run on
 * errors that would repeat for every row.
 */
export class EndpointPool {
  private readonly endpoints: Endpoint[];
  private readonly policy: HealthPolicy;
  private readonly secrets: string[];
  /** Aborted by stopSending(): no attempt starts after it, and waits for a retry end at once. */
  private readonly stopping = new AbortController();
  private lostUsage = 0;
  /** Whether an endpoint has answered these settings (this run, or rows already in the output), and the refusals since the last answer. */
  private answered = false;
  private refusals?: RefusalStreak;

  constructor(private readonly opts: PoolOptions) {
    this.policy = opts.health ?? DEFAULT_HEALTH;
    this.secrets = [opts.apiKey, ...opts.urls.flatMap(urlSecrets)];
    const send = nodeFetch({ maxReplyBytes: opts.maxReplyBytes, idleMs: opts.idleMs ?? DEFAULT_IDLE_MS });
    this.endpoints = opts.urls.map((url) => {
      // A query in the base URL (a key, on some gateways) goes with every request, never into a shown URL.
      const { base, query } = splitQuery(url);
      const connection = { baseURL: base, defaultQuery: query, apiKey: opts.apiKey };
      return {
        shown: shownUrl(url),
        connection,
        inFlight: 0,
        health: freshHealth(this.policy),
        stats: { requests: 0, failures: 0 },
        ...(opts.pacing ? { limiter: new Limiter(opts.pacing.concurrency, shownUrl(url)) } : {}),
        client: new Client({
          ...connection,
          timeout: opts.timeoutMs,
          // The pool retries, each attempt on the endpoint best placed for it.
          maxRetries: 0,
          fetch: send,
          // The client's own logging would print a server's text raw (a bad stream event) and, under
          // OPENAI_LOG=debug, each request's URL query (a key, on some gateways): awb says what went wrong.
          logLevel: 'off',
        }),
      };
    });
  }

  /** Where --batch goes: the first base URL. */
  batchTarget(): BatchTarget {
    const first = this.endpoints[0]!;
    return { connection: first.connection, endpoint: first.shown, model: this.opts.model };
  }

  /** The run is stopping: requests under way may finish, but none is sent or tried again from now on. */
  stopSending(): void {
    this.stopping.abort();
  }

  private noteFailure(ep: Endpoint): void {
    ep.stats.failures++;
    ep.health = afterFailure(ep.health, this.policy, Date.now(), this.endpoints.length);
  }

  private noteSuccess(ep: Endpoint): void {
    ep.health = afterSuccess(this.policy);
    ep.streak = undefined;
    this.answered = true;
    this.refusals = undefined;
  }

  /** The output already holds rows answered with these settings (a resumed run): a refusal the same for every row is then no setting's. */
  noteAnswered(): void {
    this.answered = true;
  }

  /**
   * Counts a refusal not worth a retry (a 4xx); the error that stops the run once the same one
   * has come for request after request and nothing was ever answered (retry.ts).
   */
  private noteRefusal(err: unknown, ep: Endpoint): FatalEndpointError | undefined {
    const reason = this.describe(err);
    this.refusals = afterRefusal(this.refusals, reason);
    if (!settingsRefused(this.refusals, this.answered)) return undefined;
    return new FatalEndpointError(
      `${this.opts.role} endpoint ${ep.shown} refused ${this.refusals.count} requests in a row with the same error and answered none: ${reason}; ` +
        (this.opts.settingsFix?.(reason) ??
          'the same refusal for every row comes from the settings sent with each request (--max-tokens, --temperature, --extra-body, …), not the rows: fix them and run the same command again'),
    );
  }

  /** Keeps each endpoint's run of failed connections: only refused, reset or unreachable ones count, not slow answers. */
  private noteConnection(ep: Endpoint, err: unknown): void {
    const code = err instanceof APIConnectionError && !(err instanceof APIConnectionTimeoutError) ? causeCode(err) : undefined;
    ep.streak = isDeadConnectionCode(code) ? afterConnectionFailure(ep.streak, Date.now(), code!) : undefined;
  }

  /** The error that stops the run when no endpoint can be reached (health.ts decides). */
  private unreachable(retriesSpent: boolean): FatalEndpointError | undefined {
    const streaks = this.endpoints.map((ep) => ep.streak);
    if (!poolUnreachable(streaks, Date.now(), this.opts.dead ?? DEFAULT_DEAD, retriesSpent)) return undefined;
    const which = this.endpoints.length > 1 ? `every ${this.opts.role} endpoint` : `${this.opts.role} endpoint ${this.endpoints[0]!.shown}`;
    const since = Math.round((Date.now() - Math.min(...streaks.map((s) => s!.since))) / 1000);
    const causes = [...new Set(streaks.map((s) => s!.cause))].join(', ');
    return new FatalEndpointError(
      `${which} keeps failing to connect (${causes}, for ${since} s): is the server still running? Finished rows are saved; run the same command again once it is back`,
    );
  }

  /** The request's body as sent to this pool's endpoints: JSON with the model and, with --stream, the stream fields. */
  encode(request: ChatRequest): ChatBody {
    const stream = this.opts.stream ? { stream: true, stream_options: { include_usage: true } } : {};
    return { json: jsonBytes({ ...request, model: this.opts.model, ...stream }) };
  }

  /**
   * Sends one chat completion. Each attempt goes to the endpoint in use with
   * the fewest requests in flight; a failed one is retried (retry.ts: the
   * openai client's rules, Retry-After honoured) up to maxRetries times,
   * whatever the failure: a malformed reply is one more kind of it.
   * Errors that would repeat for every row (rejected key, unknown model)
   * become FatalEndpointError; others are thrown once the retries are spent.
   */
  async chat(body: ChatBody, signal?: AbortSignal): Promise<ChatResult> {
    // A retry goes elsewhere when there is elsewhere to go.
    const failedOn = new Set<number>();
    for (let retry = 0; ; retry++) {
      if (this.stopping.signal.aborted) throw new StoppedError('the run is stopping');
      const index = pickEndpoint(this.endpoints, failedOn, Date.now()).index;
      const ep = this.endpoints[index]!;
      ep.inFlight++;
      let ticket: Ticket | undefined;
      let failure: AttemptFailure;
      try {
        // Waiting for the endpoint's rate limits holds the row's slot, not an attempt: it is counted once sent.
        ticket = await ep.limiter?.acquire(body.json.byteLength, this.untilStopped(signal)).catch(this.stopped(signal));
        ep.stats.requests++;
        const started = performance.now();
        const { headers, ...reply }: StreamedReply & { headers: Headers } = this.opts.stream
          ? await this.streamed(ep, body, started, signal)
          : await ep.client
              .post<unknown>(CHAT_ROUTE, { ...requestOptions(body), ...(signal && { signal }) })
              .withResponse()
              .then(({ data, response }) => ({ completion: jsonOfText(data) as ChatCompletion, headers: response.headers }))
              .catch((err: unknown) => {
                // The client parses a body declared JSON itself: one that is not is named as a reply, not as a SyntaxError.
                throw err instanceof SyntaxError
                  ? new MalformedReplyError(`${ep.shown} returned a reply that is not JSON (${err.message})`)
                  : err;
              });
        const { completion } = reply;
        const problem = replyProblem(completion, this.secrets);
        if (problem)
          throw new MalformedReplyError(
            // A stream put together without a choice is most often a body that was no event stream; any other fault is named as it is.
            this.opts.stream && completion.choices.length === 0
              ? `${ep.shown} sent no choice in its stream (a server or proxy that does not stream may answer plain JSON: try without --stream)`
              : `${ep.shown} returned ${problem}`,
          );
        this.noteSuccess(ep);
        if (ticket) ep.limiter!.answered(ticket, headers, completion.usage);
        ticket = undefined;
        return { ...reply, endpoint: ep.shown, latencyMs: Math.round(performance.now() - started) };
      } catch (err) {
        const failed =
          ticket && ep.limiter!.failed(ticket, ...(err instanceof APIError ? ([err.status, err.headers, err.error] as const) : []));
        ticket = undefined;
        if (err instanceof APIUserAbortError || signal?.aborted) throw err;
        // A request this endpoint's tokens limit never takes goes to one not yet tried, at once, or fails.
        const over = failed || (faultOf(err, 'request-over-token-limit') && err);
        if (over) {
          failedOn.add(index);
          if (failedOn.has(pickEndpoint(this.endpoints, failedOn, Date.now()).index)) throw over;
          continue;
        }
        const fatal = this.fatalFor(err, ep, err instanceof APIError && err.status === 404 ? await this.servedModels(ep) : undefined);
        if (fatal) throw fatal;
        const sent = attemptFailure(err);
        // No chat completion in a 200 (a web page from a proxy, cut JSON): asked again within the same --max-retries, and
        // counted against the endpoint, so one that keeps answering so is set aside as one failing with 5xx is.
        if (!sent && !isMalformedReply(err)) throw err;
        failure = sent ?? { kind: 'malformed' };
        if (failure.kind !== 'status' || isFailureStatus(failure.status)) this.noteFailure(ep);
        this.noteConnection(ep, err);
        failedOn.add(index);
        // Another endpoint in use, which has not failed this request, takes the retry at once (retry.ts).
        const next = pickEndpoint(this.endpoints, failedOn, Date.now());
        const elsewhere = !next.probe && !failedOn.has(next.index);
        const wait = retryDelay(failure, retry, this.opts.maxRetries, Date.now(), Math.random(), elsewhere);
        const dead = failure.kind === 'connection' ? this.unreachable(wait === undefined) : undefined;
        if (dead) throw dead;
        if (wait === undefined) {
          const refused = failure.kind === 'status' && !isRetryable(failure) ? this.noteRefusal(err, ep) : undefined;
          if (refused) throw refused;
          const waitS = unheededWaitS(failure, Date.now());
          if (waitS === undefined) throw err;
          throw new Error(
            `${this.describe(err)} (the server asked to wait ${waitS} s; awb waits at most ${MAX_SERVER_WAIT_MS / 1000} s: run the same command again once it takes requests)`,
            { cause: err },
          );
        }
        await sleep(wait, undefined, { signal: this.untilStopped(signal) }).catch(this.stopped(signal));
      } finally {
        ep.inFlight--;
      }
    }
  }

  /** The row's signal, aborted too once the run is stopping: what a wait before an attempt ends on. */
  private untilStopped(signal?: AbortSignal): AbortSignal {
    return signal ? AbortSignal.any([signal, this.stopping.signal]) : this.stopping.signal;
  }

  /**
   * A wait before an attempt that ended: the row's abort as it is, the run stopping as StoppedError (the row is left for the next
   * run), a request the tokens limit never takes as its fault.
   */
  private stopped(signal?: AbortSignal): (err: unknown) => never {
    return (err) => {
      throw signal?.aborted || faultOf(err, 'request-over-token-limit') ? err : new StoppedError('the run is stopping');
    };
  }

  /**
   * One streamed attempt. The client's timeout ends when the headers come, so
   * the whole stream gets its own; a stream that stalls, breaks or runs out
   * of time is a failed attempt (StreamFailure), retried like a timeout,
   * unless its finish reason came: then the answer is kept (collectStream),
   * and counted in usageLost when its usage never came.
   */
  private async streamed(ep: Endpoint, body: ChatBody, started: number, signal?: AbortSignal) {
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const cut = new AbortController();
    const all = AbortSignal.any([deadline, cut.signal, ...(signal ? [signal] : [])]);
    try {
      const { data: stream, response } = await ep.client
        .post<AsyncIterable<ChatCompletionChunk>>(CHAT_ROUTE, { ...requestOptions(body), stream: true, signal: all })
        .withResponse();
      const graceMs = Math.min(USAGE_GRACE_MS, this.opts.idleMs ?? DEFAULT_IDLE_MS);
      const reply = await collectStream(stream, started, { graceMs, cut: () => cut.abort() });
      if (reply.usageLost) this.lostUsage++;
      return { ...reply, headers: response.headers };
    } catch (err) {
      // Refusals before the stream starts keep their status (a 401 is still fatal, a 429 still waits).
      if (signal?.aborted || (err instanceof APIError && err.status !== undefined)) throw err;
      const why = deadline.aborted ? `timed out after ${this.opts.timeoutMs / 1000} s (--timeout)` : this.describe(err);
      throw new StreamFailure(`stream broke off: ${why}`);
    }
  }

  /** `served`: the endpoint's models list, when a 404 made the pool ask for it. */
  private fatalFor(err: unknown, ep: Endpoint, served?: string[]): FatalEndpointError | undefined {
    if (!(err instanceof APIError) || err instanceof APIConnectionError) return undefined;
    const what = `${this.opts.role} endpoint ${ep.shown}`;
    const refused = refusedAccess(err, what, () => this.describe(err), this.opts.keyHelp);
    if (refused) return refused;
    if (err.status === 404 && served?.length && !served.includes(this.opts.model)) {
      return new FatalEndpointError(
        `${what} does not know model "${visible(this.opts.model)}" (404): ${this.describe(err)}; it serves: ${this.shownModels(served)}`,
      );
    }
    if (err.status === 404) {
      return new FatalEndpointError(
        `${what} does not know model "${visible(this.opts.model)}" or the chat completions route (404): ${this.describe(err)}; is the model name right, and does the URL end in /v1?`,
      );
    }
    return undefined;
  }

  /** An error as one line for files and the terminal, secrets removed before it is cut: some servers echo the key back. */
  describe(err: unknown): string {
    let text: string;
    // A limit of awb's or a damaged body: not the "Connection error" the client wraps it in.
    const fault = replyFault(err) ?? replyFault(err instanceof Error ? err.cause : undefined);
    // The client says only "Request timed out.": the limit, and the option that sets it, say whether a longer one would help.
    if (err instanceof APIConnectionTimeoutError) text = `request timed out after ${this.opts.timeoutMs / 1000} s (--timeout)`;
    else if (fault !== undefined) text = fault;
    else if (err instanceof APIConnectionError && err.cause instanceof Error) {
      text = `${err.message.replace(/\.$/, '')}: ${err.cause.message}`;
    } else if (err instanceof APIError) text = err.message;
    // awb's own words for a reply it could not use: the class name would only be noise in a row's error.
    else if (err instanceof MalformedReplyError || err instanceof StreamFailure) text = err.message;
    else if (err instanceof Error) text = `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`;
    else text = String(err);
    return brief(text, this.secrets);
  }

  /**
   * Checks before any row is sent that each endpoint answers and serves the
   * model. A server without a models route (404), or answering it with 429 or
   * 5xx, is given the benefit of the doubt. Refusals (key, model, a page that is not JSON) stop the run;
   * so does an endpoint that cannot be reached, unless others can: then it is
   * set aside as one that keeps failing mid-run is, and the returned warnings say so.
   */
  async preflight(): Promise<string[]> {
    const checked = await Promise.all(this.endpoints.map((ep) => this.checkModels(ep)));
    const unreachable = checked.flatMap((c, i) => (c ? [{ ep: this.endpoints[i]!, ...c }] : []));
    if (unreachable.length === this.endpoints.length) throw new FatalEndpointError(unreachable[0]!.message);
    const left = this.endpoints.length - unreachable.length;
    return unreachable.map(({ ep, reason }) => {
      ep.health = setAside(ep.health, this.policy, Date.now());
      return `${reason}: set aside, the run goes on with the other ${left === 1 ? 'endpoint' : `${left} endpoints`} and tries it again later`;
    });
  }

  /**
   * One endpoint's models check: undefined when it passed; when it cannot be reached, the reason
   * and the message that stops a run with nowhere else to go; thrown when it refused.
   */
  private async checkModels(ep: Endpoint): Promise<{ reason: string; message: string } | undefined> {
    const preflightMs = Math.min(this.opts.timeoutMs, PREFLIGHT_TIMEOUT_MS);
    const what = `${this.opts.role} endpoint ${ep.shown}`;
    let body: unknown;
    try {
      body = await ep.client.get('/models', { maxRetries: 1, timeout: preflightMs, signal: this.stopping.signal });
    } catch (err) {
      // Ctrl-C during the check: nothing will be sent, and the run ends as interrupted, not as a dead endpoint.
      if (this.stopping.signal.aborted) return undefined;
      if (err instanceof APIConnectionTimeoutError) {
        return { reason: `${what} did not answer the models check within ${preflightMs / 1000} s`, message: noAnswer(what, preflightMs) };
      }
      if (err instanceof APIConnectionError) {
        const cause = causeCode(err);
        const reason = `cannot reach ${what}${cause ? ` (${cause})` : ''}`;
        return { reason, message: `${reason}: ${unreachableHint(ep.shown, cause)}` };
      }
      // No models route, or one busy or failing at the moment (429, 5xx): the rows' own retries will wait for it.
      if (err instanceof APIError && (err.status === 404 || err.status === 405 || isFailureStatus(err.status))) return undefined;
      const fatal = this.fatalFor(err, ep);
      if (fatal) throw fatal;
      throw new FatalEndpointError(`${what} failed the models check: ${this.describe(err)}`);
    }
    const { ids, notJson } = modelIds(body);
    if (notJson) {
      throw new FatalEndpointError(
        `${what} answered the models check with something other than JSON ("${brief(String(body), this.secrets, 60)}"): is it an OpenAI-compatible server, and does the URL end in /v1?`,
      );
    }
    if (ids?.length && !ids.includes(this.opts.model)) {
      throw new FatalEndpointError(`${what} does not serve model "${visible(this.opts.model)}"; it serves: ${this.shownModels(ids)}`);
    }
    return undefined;
  }

  /** Streamed answers kept whole after their stream stalled or broke past the finish reason, recorded without their usage. */
  get usageLost(): number {
    return this.lostUsage;
  }

  /** Model ids as one line: the first eight, and how many in all. */
  private shownModels(ids: string[]): string {
    return brief(ids.slice(0, 8).join(', '), this.secrets, 1000) + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
  }

  /**
   * The models an endpoint lists, asked once a chat request got a 404 (run without the preflight,
   * or a server whose list did not answer it): the model name is the usual mistake, and the list
   * shows the right one. Undefined when the list does not answer.
   */
  private async servedModels(ep: Endpoint): Promise<string[] | undefined> {
    try {
      const body = await ep.client.get('/models', {
        maxRetries: 0,
        timeout: Math.min(this.opts.timeoutMs, PREFLIGHT_TIMEOUT_MS),
        signal: this.stopping.signal,
      });
      return modelIds(body).ids;
    } catch {
      return undefined;
    }
  }

  /** Per endpoint as shown: a URL given twice (`/v1` and `/v1/`) is one endpoint, its copies' counts added up. */
  stats(): Record<string, EndpointStats> {
    const out: Record<string, EndpointStats> = {};
    for (const ep of this.endpoints) {
      const seen = out[ep.shown];
      out[ep.shown] = { requests: (seen?.requests ?? 0) + ep.stats.requests, failures: (seen?.failures ?? 0) + ep.stats.failures };
    }
    return out;
  }

  /**
   * What holds the requests back now, for the progress line: the tightest of the endpoints' limits
   * (a per-minute limit over the slots), undefined while none has stated a limit.
   */
  pacing(): LimiterStats | undefined {
    const all = this.endpoints.flatMap((ep) => (ep.limiter ? [ep.limiter.stats()] : [])).filter((s) => s.limitedBy);
    const rank = (s: LimiterStats) => (s.limitedBy === 'concurrency' ? 0 : 1) * 1e9 + s.waiting;
    return all.length ? all.reduce((a, b) => (rank(b) > rank(a) ? b : a)) : undefined;
  }

  /** The endpoints as recorded in manifests: host and port only. */
  hosts(): string[] {
    return this.endpoints.map((ep) => {
      try {
        return new URL(ep.shown).host;
      } catch {
        return '<invalid URL>';
      }
    });
  }
}
