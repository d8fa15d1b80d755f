import { compareDomains } from '../domains.js';
import type { JudgedRecord, TokenUsage } from './readers/index.js';

/* Tokens a run reported, per stage and domain, and what they cost at the user's prices. */

export interface UsageTotals extends TokenUsage {
  /** Rows that reported usage. */
  rows: number;
  cached: number;
  /** Rows that reported cached tokens: with none, the cache figures are unknown, not 0. */
  cachedRows: number;
  /** The part of the tokens the Batch API answered (--batch), cached ones included. */
  batch: { prompt: number; completion: number; cached: number };
}

export interface StageUsage {
  infer: UsageTotals;
  judge: UsageTotals;
}

export interface UsageSummary extends StageUsage {
  domains: Map<string, StageUsage>;
}

export interface StagePrices {
  /** USD per million prompt tokens. */
  input: number;
  /** USD per million completion tokens (reasoning tokens are part of them, as OpenAI-style usage counts them). */
  output: number;
  /** USD per million cached prompt tokens; unset, cached tokens cost the input price. */
  cachedInput?: number;
}

/** The world model (infer) and the judge are priced separately. */
export type Prices = Record<keyof StageUsage, StagePrices>;

const emptyUsage = (): UsageTotals => ({
  rows: 0,
  prompt: 0,
  completion: 0,
  reasoning: 0,
  cached: 0,
  cachedRows: 0,
  batch: { prompt: 0, completion: 0, cached: 0 },
});

function addUsage(t: UsageTotals, u: TokenUsage | undefined, batch: TokenUsage | undefined): void {
  if (!u) return;
  t.rows++;
  t.prompt += u.prompt;
  t.completion += u.completion;
  t.reasoning += u.reasoning;
  if (u.cached !== undefined) {
    t.cached += u.cached;
    t.cachedRows++;
  }
  t.batch.prompt += batch?.prompt ?? 0;
  t.batch.completion += batch?.completion ?? 0;
  t.batch.cached += batch?.cached ?? 0;
}

/** Token totals per stage, overall and per domain (every row, failed or not: they were paid for). */
export function usageOf(records: readonly JudgedRecord[]): UsageSummary {
  const summary: UsageSummary = { infer: emptyUsage(), judge: emptyUsage(), domains: new Map() };
  for (const r of records) {
    let d = summary.domains.get(r.domain);
    if (!d) summary.domains.set(r.domain, (d = { infer: emptyUsage(), judge: emptyUsage() }));
    addUsage(summary.infer, r.usage, r.batchUsage);
    addUsage(summary.judge, r.judgeUsage, r.judgeBatchUsage);
    addUsage(d.infer, r.usage, r.batchUsage);
    addUsage(d.judge, r.judgeUsage, r.judgeBatchUsage);
  }
  summary.domains = new Map([...summary.domains].sort(([a], [b]) => compareDomains(a, b)));
  return summary;
}

/** What the Batch API charges, as a share of the online price (OpenAI: half). */
export const BATCH_PRICE = 0.5;

/** Tokens at the stage's prices: cached prompt tokens at the cached price when one is given. */
function priced(prompt: number, cached: number, completion: number, prices: StagePrices): number {
  const atCachedPrice = prices.cachedInput === undefined ? 0 : Math.min(Math.max(cached, 0), prompt);
  return (prompt - atCachedPrice) * prices.input + atCachedPrice * (prices.cachedInput ?? 0) + completion * prices.output;
}

/** The cost of the tokens: the part answered online at the stage's prices, the part answered by the Batch API at its discount. */
export function costOf(t: UsageTotals, prices: StagePrices): number {
  const b = t.batch;
  const online = priced(t.prompt - b.prompt, t.cached - b.cached, t.completion - b.completion, prices);
  return (online + BATCH_PRICE * priced(b.prompt, b.cached, b.completion, prices)) / 1e6;
}

/** Cached prompt tokens over prompt tokens, or undefined when there were none or no row reported cached tokens. */
export function cacheHitRatio(t: UsageTotals): number | undefined {
  return t.prompt > 0 && t.cachedRows > 0 ? t.cached / t.prompt : undefined;
}

export function hasUsage(u: StageUsage): boolean {
  return u.infer.rows > 0 || u.judge.rows > 0;
}
