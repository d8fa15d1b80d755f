/*
 * Cluster bootstrap. Turns of one trajectory share their history and are
 * scored by the same judge call pattern, so they are not independent;
 * resampling rows would make intervals too narrow. The unit resampled is
 * the whole trajectory (a cluster): its rows come in or stay out together.
 */

import { compareDomains } from '../domains.js';

/** mulberry32: a tiny 32-bit PRNG, good enough for resampling and identical on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A stream seed for one named part of the computation (FNV-1a over the
 * label, mixed with the user's seed), so a domain's interval does not change
 * when other domains are added to or removed from the input.
 */
export function deriveSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= Math.floor(seed / 4294967296) >>> 0;
  return Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
}

/**
 * One trajectory's contribution to a ratio-of-sums statistic: `sum` in
 * sixtieths (for a paired comparison, candidate minus baseline) over `n` rows.
 */
export interface Cluster {
  sum: number;
  n: number;
}

export interface Interval {
  lo: number;
  hi: number;
}

export interface BootstrapSettings {
  resamples: number;
  seed: number;
}

/** Maps a resample's pooled sum and row count to the statistic (NaN when n is 0). */
export type Statistic = (sum: number, n: number) => number;

/** Draws `clusters.length` clusters with replacement and returns the pooled sum and count. */
function resampleOnce(clusters: readonly Cluster[], rng: () => number): Cluster {
  const k = clusters.length;
  let sum = 0;
  let n = 0;
  for (let i = 0; i < k; i++) {
    const c = clusters[Math.floor(rng() * k)]!;
    sum += c.sum;
    n += c.n;
  }
  return { sum, n };
}

/** The statistic over `resamples` resamples of the clusters, drawn from the stream named `label`. */
export function bootstrapClusters(clusters: readonly Cluster[], settings: BootstrapSettings, label: string, stat: Statistic): Float64Array {
  const rng = mulberry32(deriveSeed(settings.seed, label));
  const out = new Float64Array(settings.resamples);
  for (let b = 0; b < settings.resamples; b++) {
    const r = resampleOnce(clusters, rng);
    out[b] = stat(r.sum, r.n);
  }
  return out;
}

/** One row's part of a ratio-of-sums statistic: `sum` over `n` (n 0: the row does not count, its trajectory is still drawn). */
export interface ClusterPart {
  /** The stratum (a domain, or a domain's turn bucket). */
  group: string;
  /** The trajectory. */
  cluster: string;
  sum: number;
  n: number;
}

/**
 * Per group (in leaderboard order), each trajectory's summed parts, sorted
 * by trajectory so that resamples do not depend on file order.
 */
export function groupClusters(parts: Iterable<ClusterPart>): Map<string, Cluster[]> {
  const byGroup = new Map<string, Map<string, Cluster>>();
  for (const p of parts) {
    let clusters = byGroup.get(p.group);
    if (!clusters) byGroup.set(p.group, (clusters = new Map()));
    let c = clusters.get(p.cluster);
    if (!c) clusters.set(p.cluster, (c = { sum: 0, n: 0 }));
    c.sum += p.sum;
    c.n += p.n;
  }
  const out = new Map<string, Cluster[]>();
  for (const g of [...byGroup.keys()].sort(compareDomains)) {
    const clusters = byGroup.get(g)!;
    out.set(
      g,
      [...clusters.keys()].sort().map((k) => clusters.get(k)!),
    );
  }
  return out;
}

export interface GroupedSamples {
  groups: Map<string, Float64Array>;
  /** Per resample, the mean of the groups' statistics: each group resampled independently. */
  mean: Float64Array;
}

/**
 * Stratified bootstrap: every group (domain) resamples its own clusters
 * independently; the mean over groups is taken resample by resample. A
 * resample where some group came out empty has no mean (NaN) and is left
 * out of the percentiles.
 */
export function bootstrapGroups(
  groups: ReadonlyMap<string, readonly Cluster[]>,
  settings: BootstrapSettings,
  stat: Statistic,
): GroupedSamples {
  const out = new Map<string, Float64Array>();
  const mean = new Float64Array(settings.resamples);
  for (const [name, clusters] of groups) {
    const samples = bootstrapClusters(clusters, settings, `group:${name}`, stat);
    out.set(name, samples);
    for (let b = 0; b < samples.length; b++) mean[b]! += samples[b]!;
  }
  for (let b = 0; b < mean.length; b++) mean[b]! /= groups.size;
  return { groups: out, mean };
}

/**
 * 95% intervals per group and for the mean of the groups (each group
 * resampled on its own). Groups without a counted row have no value and stay
 * out of the mean, as in the point estimate; their interval is undefined.
 */
export function stratifiedIntervals(
  groups: ReadonlyMap<string, readonly Cluster[]>,
  settings: BootstrapSettings,
  stat: Statistic,
): { groups: Map<string, Interval | undefined>; mean: Interval | undefined } {
  const scored = new Map([...groups].filter(([, cs]) => cs.some((c) => c.n > 0)));
  const sampled = bootstrapGroups(scored, settings, stat);
  const intervals = new Map<string, Interval | undefined>();
  for (const g of groups.keys()) {
    const samples = sampled.groups.get(g);
    intervals.set(g, samples ? percentileInterval(samples) : undefined);
  }
  return { groups: intervals, mean: scored.size ? percentileInterval(sampled.mean) : undefined };
}

/**
 * Percentile interval (linear interpolation between order statistics, as
 * numpy's default). NaN samples are dropped; undefined when none remain.
 */
export function percentileInterval(samples: Float64Array, level = 0.95): Interval | undefined {
  const finite = samples.filter((v) => !Number.isNaN(v)).sort();
  if (finite.length === 0) return undefined;
  // 1 - 0.95 is 0.050000000000000044 in doubles; trim that so 0.025 means 0.025.
  const tail = Number(((1 - level) / 2).toPrecision(12));
  return { lo: quantile(finite, tail), hi: quantile(finite, 1 - tail) };
}

function quantile(sorted: Float64Array, p: number): number {
  const pos = (sorted.length - 1) * p;
  const i = Math.floor(pos);
  const frac = pos - i;
  const a = sorted[i]!;
  const b = sorted[Math.min(i + 1, sorted.length - 1)]!;
  return frac === 0 ? a : a + (b - a) * frac;
}
