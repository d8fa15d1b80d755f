import { fail, type FaultError } from '../../errors.js';
import type { OverTokenLimit } from '../faults.js';
import {
  decide,
  ended,
  estimateTokens,
  freshBudget,
  learn,
  learnUsage,
  maybeUncounted,
  neverFits,
  rateLimited,
  read429,
  readLimitHeaders,
  started,
  type Budget,
  type Headers,
  type LimitingFactor,
  type Ticket,
} from './rate-limit.js';
import { honouredWaitMs } from '../retry.js';

/** A limiter's figures for the progress line: what holds requests back, and the pace it keeps. */
export interface LimiterStats {
  /** Undefined while the endpoint has said nothing of its limits (no pacing). */
  limitedBy?: LimitingFactor;
  /** Its slots now (`-c`, or fewer after a 429). */
  cap: number;
  /** Attempts waiting for their turn. */
  waiting: number;
  /** The limits as last stated, per minute. */
  tokensPerMin?: number;
  requestsPerMin?: number;
}

interface Waiter {
  bytes: number;
  resolve: (t: Ticket) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/** How long a factor that held a request back is still shown once nothing waits any more. */
const SHOWN_MS = 3000;

/**
 * One endpoint's budget (rate-limit.ts) and the attempts waiting for it, in
 * the order they came: the first waits for its turn, the others behind it,
 * so a large request is not passed over for ever by small ones. A timer is
 * set only while someone waits (kept referenced: it may be all that holds the run).
 */
export class Limiter {
  private budget: Budget;
  private readonly queue: Waiter[] = [];
  private readonly inFlight = new Set<Ticket>();
  private timer: NodeJS.Timeout | undefined;
  private lastFactor: { factor: LimitingFactor; at: number } | undefined;

  /** `endpoint`: the endpoint as shown, for the fault of a request its limit never takes. */
  constructor(
    private readonly ceiling: number,
    private readonly endpoint: string,
  ) {
    this.budget = freshBudget(ceiling);
  }

  /** Epoch ms until which a 429's wait holds every attempt back (0: none). */
  get pausedUntil(): number {
    return this.budget.limited ? this.budget.pausedUntil : 0;
  }

  /**
   * Resolves once an attempt with a body of `bytes` may be sent; rejects with the signal's reason when it is aborted first,
   * and with a `request-over-token-limit` fault, at once or as soon as it is known, when the limit can never take it.
   */

  acquire(bytes: number, signal: AbortSignal): Promise<Ticket> {
    signal.throwIfAborted();
    const over = this.overLimit(bytes);
    if (over) return Promise.reject(over);
    if (!this.queue.length && decide(this.budget, estimateTokens(this.budget, bytes), Date.now()).go)
      return Promise.resolve(this.start(bytes));
    return new Promise<Ticket>((resolve, reject) => {
      const w: Waiter = { bytes, resolve, reject, signal, onAbort: () => this.drop(w) };
      signal.addEventListener('abort', w.onAbort, { once: true });
      this.queue.push(w);
      this.pump();
    });
  }

  /** The attempt got an answer: its headers and usage teach the budget. */
  answered(t: Ticket, headers: Headers, usage?: { prompt_tokens?: number; completion_tokens?: number }): void {
    const now = Date.now();
    this.inFlight.delete(t);
    const learnt = learn(this.budget, t, readLimitHeaders(headers), now, maybeUncounted(t, this.inFlight));
    this.budget = ended(learnUsage(learnt, t, usage), t, now, this.ceiling);
    this.pump();
  }

  /**
   * The attempt failed: a 429 pauses the endpoint (and halves its slots when it states its limits); any status's headers teach the budget.
   * Returns the fault to end the request with when what was learnt says the limit can never take it (no retry can help).
   */
  failed(t: Ticket, status?: number, headers?: Headers, body?: unknown): FaultError<OverTokenLimit> | undefined {
    const now = Date.now();
    this.inFlight.delete(t);
    let b = headers ? learn(this.budget, t, readLimitHeaders(headers), now, maybeUncounted(t, this.inFlight)) : this.budget;
    if (status === 429) {
      const said = read429(
        typeof body === 'object' && body !== null ? (body as { type?: unknown; code?: unknown; message?: unknown }) : undefined,
        headers,
        t.tokens,
      );
      b = rateLimited(b, t, { ...said, waitMs: headers && honouredWaitMs(headers, now) }, now);
    }
    this.budget = ended(b, t, now, this.ceiling);
    this.pump();
    return this.overLimit(t.bytes);
  }

  stats(): LimiterStats {
    const b = this.budget;
    const now = Date.now();
    const recent = this.lastFactor && (this.queue.length || now - this.lastFactor.at < SHOWN_MS) ? this.lastFactor.factor : undefined;
    return {
      ...(b.limited ? { limitedBy: recent ?? 'concurrency' } : {}),
      cap: b.cap,
      waiting: this.queue.length,
      ...(b.tokens ? { tokensPerMin: Math.round(b.tokens.perMs * 60_000) } : {}),
      ...(b.requests ? { requestsPerMin: Math.round(b.requests.perMs * 60_000) } : {}),
    };
  }

  private start(bytes: number): Ticket {
    const { budget, ticket } = started(this.budget, estimateTokens(this.budget, bytes), bytes, Date.now());
    this.budget = budget;
    this.inFlight.add(ticket);
    return ticket;
  }

  private overLimit(bytes: number): FaultError<OverTokenLimit> | undefined {
    const over = neverFits(this.budget, bytes);
    return over && fail({ kind: 'request-over-token-limit', endpoint: this.endpoint, ...over });
  }

  private drop(w: Waiter): void {
    const i = this.queue.indexOf(w);
    if (i >= 0) this.queue.splice(i, 1);
    w.reject(w.signal.reason);
    this.pump();
  }

  /** Lets the waiters at the head go while the budget allows; else sets a timer for the head's wait (none: the next attempt to end calls again). */
  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length) {
      const w = this.queue[0]!;
      const over = this.overLimit(w.bytes);
      if (over) {
        this.queue.shift();
        w.signal.removeEventListener('abort', w.onAbort);
        w.reject(over);
        continue;
      }
      const now = Date.now();
      const d = decide(this.budget, estimateTokens(this.budget, w.bytes), now);
      if (!d.go) {
        this.lastFactor = { factor: d.factor, at: now };
        if (d.waitMs !== undefined) this.timer = setTimeout(() => this.pump(), Math.max(1, d.waitMs));
        return;
      }
      this.queue.shift();
      w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(this.start(w.bytes));
    }
  }
}
