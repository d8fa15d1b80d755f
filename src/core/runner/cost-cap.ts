import { StoppedError, type ChatBody, type ChatResult } from '../endpoints/index.js';
import type { DomainTally } from './accounting.js';
import type { RowChat } from './stage.js';

/*
 * --max-cost: a spending cap on a run's requests, at the user's prices. Before a request goes, what the output's rows
 * have cost so far, plus the most the requests in flight can cost, plus the most this one can, must stay within the
 * cap; else sending stops and the requests in flight finish. The most a request can cost counts its prompt as one
 * token per byte of the request's JSON (a byte-level tokenizer never makes more; the JSON's quotes and keys outweigh a
 * chat template's few tokens per message) and its completion as its whole token limit. Once answered, a request costs
 * what its reply's usage says.
 */

/** USD per million tokens. */
export interface Prices {
  input: number;
  output: number;
}

/** Where the spending stands: `spent` by answered requests (and the output's rows from before), `inFlight` at most. */
export interface Spending {
  cap: number;
  spent: number;
  inFlight: number;
}

/** The admission policy: a request that can cost at most `bound` goes only when the spending can then stay within the cap. */
export function admits(s: Spending, bound: number): boolean {
  return s.spent + s.inFlight + bound <= s.cap;
}

/** The most a request can cost: its prompt at one token per byte of `promptBytes`, its completion at `maxTokens`. */
export function requestBound(promptBytes: number, maxTokens: number, prices: Prices): number {
  return tokensCost(promptBytes, maxTokens, prices);
}

/** What tokens cost. */
export function tokensCost(promptTokens: number, completionTokens: number, prices: Prices): number {
  return (promptTokens * prices.input + completionTokens * prices.output) / 1e6;
}

/** What the rows counted in `tallies` cost, from the usage they record (a row without usage counts nothing). */
function talliedCost(tallies: Iterable<DomainTally>, prices: Prices): number {
  let cost = 0;
  for (const t of tallies) cost += tokensCost(t.promptTokens, t.completionTokens, prices);
  return cost;
}

/** What an answered request cost: its usage; without one, the most it could have. */
function replyCost(reply: ChatResult, bound: number, prices: Prices): number {
  const u = reply.completion.usage;
  return u ? tokensCost(u.prompt_tokens, u.completion_tokens, prices) : bound;
}

export interface CostCapOptions {
  cap: number;
  prices: Prices;
  /** Each request's completion token limit (--max-tokens). */
  maxTokens: number;
  /** Told once, when the cap first refuses a request (the sending is to stop: no retry, no new row). */
  onReached: (s: Spending) => void;
}

/**
 * A run's spending under its cap: `chat` wraps a row's requests with the admission; once it has refused one, `reached`
 * (the runner then takes no new row). A refused request throws StoppedError: its row is left for the next run, as at
 * Ctrl-C.
 */
export class CostCap {
  private spent = 0;
  private inFlight = 0;
  /** The most the first request refused could have cost; undefined while none was. */
  private refusedBound: number | undefined;

  constructor(private readonly opts: CostCapOptions) {}

  /** The spending now. */
  get spending(): Spending {
    return { cap: this.opts.cap, spent: this.spent, inFlight: this.inFlight };
  }

  /** Whether the cap has refused a request: the runner then takes no new row. */
  get reached(): boolean {
    return this.refusedBound !== undefined;
  }

  /** The most the first request refused could have cost (0 while none was). */
  get refused(): number {
    return this.refusedBound ?? 0;
  }

  /** The run starts from what the output's rows kept from earlier runs cost (`kept`: their tallies). */
  start(kept: Iterable<DomainTally>): void {
    this.spent = talliedCost(kept, this.opts.prices);
  }

  /** The row's requests, each admitted first, its cost counted once answered (nothing for a failed one: no reply, no bill). */
  chat(inner: RowChat): RowChat {
    return {
      encode: (request) => inner.encode(request),
      send: async (n: number, body: ChatBody, signal: AbortSignal) => {
        const bound = requestBound(body.json.byteLength, this.opts.maxTokens, this.opts.prices);
        if (this.reached || !admits(this.spending, bound)) {
          if (!this.reached) {
            this.refusedBound = bound;
            this.opts.onReached(this.spending);
          }
          throw new StoppedError('the cost cap is reached');
        }
        this.inFlight += bound;
        let cost = 0;
        try {
          const reply = await inner.send(n, body, signal);
          cost = replyCost(reply, bound, this.opts.prices);
          return reply;
        } finally {
          this.inFlight -= bound;
          this.spent += cost;
        }
      },
    };
  }
}
