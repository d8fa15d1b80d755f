import { studentQuantile } from './student-t.js';
import type { Cluster, Interval } from '../score/index.js';

/*
 * The spread of a paired delta: cluster-robust over trajectories for a
 * domain, Welch-Satterthwaite for a mean of domains, and the t interval of either.
 */

/**
 * The delta's sampling spread, from the trajectories: the CR2
 * cluster-robust standard error with Bell-McCaffrey degrees of freedom
 * (Welch-Satterthwaite's for Overall). Undefined with fewer than two
 * trajectories.
 */
export interface Spread {
  se: number;
  df: number;
}

/**
 * CR2 spread of a ratio-of-sums mean (a weighted mean over rows, clustered
 * by trajectory): each trajectory's residual sum squared, scaled by
 * 1 / (1 - n_g / N), the leverage correction that keeps it unbiased with
 * few and unequal trajectories. Degrees of freedom by Bell and McCaffrey,
 * (tr B)^2 / tr(B^2) with B_gh = (δ_gh n_g - n_g n_h / N) / sqrt((1 - p_g)(1 - p_h)),
 * p_g = n_g / N: G - 1 for equal trajectories, fewer as sizes spread.
 */
export function clusterSpread(clusters: readonly Cluster[]): Spread | undefined {
  const g = clusters.length;
  if (g < 2) return undefined;
  const n = clusters.reduce((s, c) => s + c.n, 0);
  const mean = clusters.reduce((s, c) => s + c.sum, 0) / n;
  const ss = clusters.reduce((s, c) => s + (c.sum - mean * c.n) ** 2 / (1 - c.n / n), 0);
  const w = clusters.map((c) => 1 / Math.sqrt(1 - c.n / n));
  let trace = 0;
  let trace2 = 0;
  for (let i = 0; i < g; i++) {
    for (let j = 0; j < g; j++) {
      const b = ((i === j ? clusters[i]!.n : 0) - (clusters[i]!.n * clusters[j]!.n) / n) * w[i]! * w[j]!;
      if (i === j) trace += b;
      trace2 += b * b;
    }
  }
  return { se: Math.sqrt(ss) / n, df: (trace * trace) / trace2 };
}

/** The spread of a mean of independent domain deltas; Welch–Satterthwaite degrees of freedom. */
export function meanSpread(parts: readonly Spread[]): Spread {
  const k = parts.length;
  const v = parts.reduce((s, p) => s + p.se ** 2, 0) / (k * k);
  const denom = parts.reduce((s, p) => s + (p.se ** 2 / (k * k)) ** 2 / p.df, 0);
  // All-zero variances: no spread to speak of; the smallest df keeps the quantile finite and conservative.
  const df = denom > 0 ? (v * v) / denom : Math.min(...parts.map((p) => p.df));
  return { se: Math.sqrt(v), df };
}

export function tInterval(delta: number, s: Spread | undefined, level = 0.95): Interval | undefined {
  if (!s) return undefined;
  const half = studentQuantile(1 - (1 - level) / 2, s.df) * s.se;
  return { lo: delta - half, hi: delta + half };
}
