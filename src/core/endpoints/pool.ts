import { setTimeout as sleep } from 'node:timers/promises';
import { APIError, APIUserAbortError } from 'openai';
import { fail, faultOf } from '../errors.js';
import { shownUrl, splitQuery, urlSecrets } from '../shown.js';
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
  type Health,
  type HealthPolicy,
} from './health.js';
import { Client } from './http/client.js';
import { attempt, chatBody, DEFAULT_IDLE_MS, type AttemptSettings } from './attempt.js';
import {
  RequestFailed,
  StoppedError,
  accessFault,
  attemptFailure,
  describeError,
  isFailureStatus,
  isMalformedReply,
  unknownModel,
} from './classify.js';
import type { EndpointFault, EndpointNotice, OverTokenLimit } from './faults.js';
import { nodeFetch } from './http/http-fetch.js';
import { checkModels, servedModels, type Listing } from './preflight.js';
import {
  MAX_SERVER_WAIT_MS,
  afterRefusal,
  failureKey,
  failuresRepeated,
  isCutUnder,
  isRetryable,
  overLimitStops,
  retryDelay,
  settingsRefused,
  unheededWaitS,
  type AttemptFailure,
  type RefusalStreak,
} from './retry.js';
import { Limiter, type LimiterStats } from './pacing/limiter.js';
import type { Ticket } from './pacing/rate-limit.js';
import type { BatchTarget, ChatBody, ChatRequest, ChatResult, Connection, EndpointStats, PoolOptions } from './types.js';

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
  private readonly attempts: AttemptSettings;
  /** Aborted by stopSending(): no attempt starts after it, and waits for a retry end at once. */
  private readonly stopping = new AbortController();
  private lostUsage = 0;
  private abandonedCount = 0;
  private malformedCount = 0;
  /** Whether an endpoint has answered these settings (this run, or rows already in the output), and the refusals since the last answer. */
  private answered = false;
  private refusals?: RefusalStreak;
  /** The failed attempts (500s, cut connections) since the last answer, when they were the same. */
  private failures?: RefusalStreak;
  /** The requests over every endpoint's whole tokens limit since the last answer. */
  private overLimits?: RefusalStreak;

  constructor(private readonly opts: PoolOptions) {
    this.policy = opts.health ?? DEFAULT_HEALTH;
    this.secrets = [opts.apiKey, ...opts.urls.flatMap(urlSecrets)];
    this.attempts = { stream: opts.stream, timeoutMs: opts.timeoutMs, idleMs: opts.idleMs, secrets: this.secrets };
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

  /** A fault that stops the run, and with it the sending: the requests in flight may still be answered. */
  private halt(f: EndpointFault): Error {
    this.stopSending();
    return fail(f);
  }

  /** The output already holds rows answered with these settings (a resumed run): a refusal the same for every row is then no setting's. */
  noteAnswered(): void {
    this.answered = true;
  }

  /** The request's body as sent to this pool's endpoints (attempt.ts, chatBody). */
  encode(request: ChatRequest): ChatBody {
    return chatBody(request, this.opts.model, this.opts.stream === true);
  }

  /**
   * Sends one chat completion. Each attempt goes to the endpoint in use with
   * the fewest requests in flight; a failed one is retried (retry.ts: the
   * openai client's rules, Retry-After honoured) up to maxRetries times,
   * whatever the failure: a malformed reply is one more kind of it.
   * Errors that would repeat for every row (rejected key, unknown model)
   * are thrown as endpoint faults; others once the retries are spent.
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
      let sent = false;
      try {
        // Waiting for the endpoint's rate limits holds the row's slot, not an attempt: it is counted once sent.
        ticket = await ep.limiter?.acquire(body.json.byteLength, this.untilStopped(signal)).catch(this.stopped(signal));
        ep.stats.requests++;
        sent = true;
        const started = performance.now();
        const { headers, ...reply } = await attempt(ep.client, ep.shown, body, this.attempts, signal);
        if (reply.usageLost) this.lostUsage++;
        this.noteSuccess(ep);
        if (ticket) ep.limiter!.answered(ticket, headers, reply.completion.usage);
        ticket = undefined;
        return { ...reply, endpoint: ep.shown, latencyMs: Math.round(performance.now() - started) };
      } catch (err) {
        const failed =
          ticket && ep.limiter!.failed(ticket, ...(err instanceof APIError ? ([err.status, err.headers, err.error] as const) : []));
        ticket = undefined;
        if (err instanceof APIUserAbortError || signal?.aborted) {
          // A whole reply abandoned under way: a server that notices no closed connection (transformers serve) goes on generating it.
          if (sent && !this.opts.stream) this.abandonedCount++;
          throw err;
        }
        // A request this endpoint's tokens limit never takes goes to one not yet tried, at once, or fails.
        const over = failed?.fault ?? faultOf(err, 'request-over-token-limit');
        if (over) {
          failedOn.add(index);
          if (failedOn.has(pickEndpoint(this.endpoints, failedOn, Date.now()).index)) throw this.noteOverLimit(over);
          continue;
        }
        const failure = attemptFailure(err, this.opts.model);
        const fatal = await this.fatalFor(err, failure, ep);
        if (fatal) throw this.halt(fatal);
        const wait = this.afterFailedAttempt(err, failure, ep, index, failedOn, retry);
        await sleep(wait, undefined, { signal: this.untilStopped(signal) }).catch(this.stopped(signal));
      } finally {
        ep.inFlight--;
      }
    }
  }

  /**
   * Notes a failed attempt against its endpoint and returns how long to wait before the next one, or
   * throws: the error itself once retries are spent, a fault once the failures say the run should stop.
   */
  private afterFailedAttempt(
    err: unknown,
    sent: AttemptFailure | undefined,
    ep: Endpoint,
    index: number,
    failedOn: Set<number>,
    retry: number,
  ): number {
    // No chat completion in a 200 (a web page from a proxy, cut JSON): asked again within the same --max-retries, and
    // counted against the endpoint, so one that keeps answering so is set aside as one failing with 5xx is.
    if (!sent && !isMalformedReply(err)) throw err;
    if (!sent) this.malformedCount++;
    const failure: AttemptFailure = sent ?? { kind: 'malformed' };
    if (failure.kind !== 'status' || isFailureStatus(failure.status)) this.noteFailure(ep);
    this.noteConnection(ep, failure);
    const repeated = this.noteRepeated(err, ep, failure);
    if (repeated) throw this.halt(repeated);
    failedOn.add(index);
    // Another endpoint in use, which has not failed this request, takes the retry at once (retry.ts).
    const next = pickEndpoint(this.endpoints, failedOn, Date.now());
    const elsewhere = !next.probe && !failedOn.has(next.index);
    const wait = retryDelay(failure, retry, this.opts.maxRetries, Date.now(), Math.random(), elsewhere);
    const dead = failure.kind === 'connection' ? this.unreachable(wait === undefined) : undefined;
    if (dead) throw this.halt(dead);
    if (wait !== undefined) return wait;
    const refused = failure.kind === 'status' && !isRetryable(failure) ? this.noteRefusal(err, ep, failure) : undefined;
    if (refused) throw this.halt(refused);
    const waitS = unheededWaitS(failure, Date.now());
    if (waitS === undefined) throw new RequestFailed(failure, this.describe(err));
    throw new RequestFailed(
      failure,
      `${this.describe(err)} (the server asked to wait ${waitS} s; awb waits at most ${MAX_SERVER_WAIT_MS / 1000} s: run the same command again once it takes requests)`,
      waitS,
    );
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
   * The fault of a chat refusal that would repeat for every row: a key, access or quota refusal, or one about the
   * model (refusalOf): a 404 always, a 400 or 422 before anything was answered (a server pinned to one model; once it
   * has answered, such a refusal is the row's). One about the model first asks for the models list, to show it.
   */
  private async fatalFor(err: unknown, failure: AttemptFailure | undefined, ep: Endpoint): Promise<EndpointFault | undefined> {
    if (failure?.kind !== 'status' || !(err instanceof APIError)) return undefined;
    const said = () => this.describe(err);
    const refused = accessFault(err, this.at(ep), said, this.opts.key);
    if (refused) return refused;
    if (failure.refusal.about !== 'model' || (failure.status !== 404 && this.answered)) return undefined;
    return unknownModel(this.at(ep), this.opts.model, failure.status, said(), await servedModels(this.listing(ep)));
  }

  /** An error as one line for files and the terminal, secrets removed before it is cut: some servers echo the key back. */
  describe(err: unknown): string {
    return describeError(err, this.opts.timeoutMs, this.secrets);
  }

  /**
   * Checks before any row is sent that each endpoint answers and serves the model
   * (preflight.ts). Refusals (key, model, a page that is not JSON) stop the run; so
   * does an endpoint that cannot be reached, unless others can: then it is set
   * aside as one that keeps failing mid-run is, and said in a notice, as is a model
   * the list leaves out that a one-token request found answered.
   */
  async preflight(): Promise<EndpointNotice[]> {
    const checked = await Promise.all(this.endpoints.map((ep) => checkModels(this.listing(ep))));
    const unreachable = checked.flatMap((f, i) => (f && f.kind !== 'model-unlisted' ? [{ ep: this.endpoints[i]!, fault: f }] : []));
    if (unreachable.length === this.endpoints.length) throw fail(unreachable[0]!.fault);
    const left = this.endpoints.length - unreachable.length;
    const asides = unreachable.map(({ ep, fault }): EndpointNotice => {
      ep.health = setAside(ep.health, this.policy, Date.now());
      return { kind: 'endpoint-set-aside', fault, left };
    });
    // Replicas of one server leave the model out alike: said once.
    const unlisted = checked.find((f) => f?.kind === 'model-unlisted');
    return unlisted ? [...asides, unlisted] : asides;
  }

  /**
   * What the run ends by telling of these endpoints: whole replies given up on under way, which a server may still be
   * generating, and replies that were no chat completion (asked again: a row never records one).
   */
  endNotices(): EndpointNotice[] {
    const role = this.opts.role;
    return [
      ...(this.abandonedCount ? [{ kind: 'replies-abandoned', role, count: this.abandonedCount } as const] : []),
      ...(this.malformedCount ? [{ kind: 'malformed-replies-retried', role, count: this.malformedCount } as const] : []),
    ];
  }

  /** Streamed answers kept whole after their stream stalled or broke past the finish reason, recorded without their usage. */
  get usageLost(): number {
    return this.lostUsage;
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
    return this.endpoints.map((ep) => (URL.canParse(ep.shown) ? new URL(ep.shown).host : '<invalid URL>'));
  }

  private at(ep: Endpoint) {
    return { role: this.opts.role, endpoint: ep.shown };
  }

  private listing(ep: Endpoint): Listing {
    return {
      client: ep.client,
      ...this.at(ep),
      model: this.opts.model,
      ...(this.opts.key && { key: this.opts.key }),
      timeoutMs: this.opts.timeoutMs,
      secrets: this.secrets,
      stopping: this.stopping.signal,
    };
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
    this.failures = undefined;
    this.overLimits = undefined;
  }

  /**
   * Counts a refusal not worth a retry (a 4xx); the fault that stops the run once the same one
   * has come for request after request and nothing was ever answered (retry.ts).
   */
  private noteRefusal(err: unknown, ep: Endpoint, failure: Extract<AttemptFailure, { kind: 'status' }>): EndpointFault | undefined {
    // A prompt over the context is the row's own: it neither counts nor breaks a run of refusals the same for every row. One
    // that fits, pushed over by the completion budget (`budget`), is the settings': it counts, and stops the run as they do.
    if (failure.refusal.about === 'context') return undefined;
    const reason = this.describe(err);
    this.refusals = afterRefusal(this.refusals, failureKey(failure), reason);
    if (!settingsRefused(this.refusals, this.answered)) return undefined;
    const { setting, over } = failure.refusal;
    if (over) return { kind: 'budget-over-context', ...this.at(ep), count: this.refusals.count, reason, over, sent: this.opts.sent ?? {} };
    return {
      kind: 'settings-refused',
      ...this.at(ep),
      count: this.refusals.count,
      reason,
      sent: this.opts.sent ?? {},
      ...(setting && { setting }),
    };
  }

  /** What a request no endpoint's tokens limit takes ends with: the fault that stops the run, or the row's failure (retry.ts). */
  private noteOverLimit(f: OverTokenLimit): Error {
    this.overLimits = afterRefusal(this.overLimits, f.kind, f.kind);
    if (overLimitStops(f.promptFits, this.overLimits, this.answered)) return this.halt(f);
    return new RequestFailed(
      { kind: 'over-token-limit', tokens: f.tokens, limit: f.limit, endpoint: f.endpoint },
      `request of about ${f.tokens} tokens is over the whole limit of ${f.limit} tokens per minute of ${f.endpoint} (x-ratelimit-limit-tokens): no wait makes room for it, a key with a higher limit does`,
    );
  }

  /**
   * Counts an attempt that failed in a way its retries may only repeat: a 500, or a connection cut
   * under a request (not refused, not timed out); the fault once the same one has come too often (retry.ts).
   */
  private noteRepeated(err: unknown, ep: Endpoint, failure: AttemptFailure): EndpointFault | undefined {
    const kind = failure.kind === 'status' && failure.status === 500 ? 'status' : isCutUnder(failure) ? 'connection' : undefined;
    if (!kind) return undefined;
    const reason = this.describe(err);
    this.failures = afterRefusal(this.failures, failureKey(failure), reason);
    if (!failuresRepeated(this.failures, this.answered, kind)) return undefined;
    return {
      kind: 'failures-repeated',
      ...this.at(ep),
      count: this.failures.count,
      reason,
      failure: kind,
      stream: this.opts.stream === true,
    };
  }

  /** Keeps each endpoint's run of failed connections: only refused, reset or unreachable ones count, not slow answers. */
  private noteConnection(ep: Endpoint, failure: AttemptFailure): void {
    const code = failure.kind === 'connection' ? failure.cause : undefined;
    ep.streak = code !== undefined && isDeadConnectionCode(code) ? afterConnectionFailure(ep.streak, Date.now(), code) : undefined;
  }

  /** The fault that stops the run when no endpoint can be reached (health.ts decides). */
  private unreachable(retriesSpent: boolean): EndpointFault | undefined {
    const streaks = this.endpoints.map((ep) => ep.streak);
    if (!poolUnreachable(streaks, Date.now(), this.opts.dead ?? DEFAULT_DEAD, retriesSpent)) return undefined;
    return {
      kind: 'endpoints-dead',
      ...this.at(this.endpoints[0]!),
      several: this.endpoints.length > 1,
      causes: [...new Set(streaks.map((s) => s!.cause))],
      seconds: Math.round((Date.now() - Math.min(...streaks.map((s) => s!.since))) / 1000),
    };
  }
}
