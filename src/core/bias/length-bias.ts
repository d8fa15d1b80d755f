/*
 * Length bias: does the judge give longer predictions higher totals? Per
 * domain, an ordinary least-squares line of the row's total (0-100) on
 * x = log2(len(prediction) / len(truth)): the slope is the points a row
 * gains when its prediction doubles in length relative to the truth; the
 * intercept, the total predicted at the truth's own length, is the
 * length-controlled score (AlpacaEval-LC's idea: the score the run would
 * get if its answers were as long as the reference's). Intervals resample
 * trajectories, as every other interval here.
 */

import { compareDomains } from '../domains.js';
import { deriveSeed, mulberry32, percentileInterval, type BootstrapSettings, type Interval } from '../score/index.js';

/** One counted row: its total on the 0-100 scale and its prediction's length relative to the truth's. */
export interface LengthPoint {
  domain: string;
  /** The trajectory, the resampling unit. */
  cluster: string;
  total: number;
  /** log2(len(prediction) / len(truth)). */
  logRatio: number;
}

export interface LengthFit {
  /** Points per doubling of the relative length. */
  slope: number;
  /** The total predicted at relative length 1: the length-controlled score. */
  intercept: number;
}

export interface DomainLengthBias {
  domain: string;
  rows: number;
  /** The mean total of these rows (the score the fit starts from). */
  mean: number;
  /** Median relative length (prediction over truth). */
  medianRatio: number;
  /** Undefined when the lengths do not vary (no line fits). */
  fit: LengthFit | undefined;
  slopeCi: Interval | undefined;
  lcCi: Interval | undefined;
  /** The slope's interval excludes 0. */
  biased: boolean;
}

export interface LengthBias {
  domains: DomainLengthBias[];
  /** Mean of the domains' length-controlled scores (those with a fit). */
  lc: number | undefined;
  lcCi: Interval | undefined;
  /** Mean of the same domains' raw means, for comparison. */
  mean: number | undefined;
}

/** Rows with no usable length (an empty truth or prediction) have no log ratio: undefined. */
export function logLengthRatio(predictionChars: number, truthChars: number): number | undefined {
  return predictionChars > 0 && truthChars > 0 ? Math.log2(predictionChars / truthChars) : undefined;
}

/** Least squares over the points; undefined with fewer than two distinct lengths. */
export function fitLength(points: ReadonlyArray<Pick<LengthPoint, 'total' | 'logRatio'>>): LengthFit | undefined {
  const n = points.length;
  if (n < 2) return undefined;
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.logRatio;
    sy += p.total;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    const dx = p.logRatio - mx;
    sxx += dx * dx;
    sxy += dx * (p.total - my);
  }
  // Equal lengths up to rounding: no slope can be told apart.
  if (sxx <= 1e-12 * n) return undefined;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** Per domain (leaderboard order), the points of each trajectory, trajectories sorted so that resamples do not depend on file order. */
function byDomain(points: readonly LengthPoint[]): Map<string, LengthPoint[][]> {
  const groups = new Map<string, Map<string, LengthPoint[]>>();
  for (const p of points) {
    let g = groups.get(p.domain);
    if (!g) groups.set(p.domain, (g = new Map()));
    let c = g.get(p.cluster);
    if (!c) g.set(p.cluster, (c = []));
    c.push(p);
  }
  const out = new Map<string, LengthPoint[][]>();
  for (const d of [...groups.keys()].sort(compareDomains)) {
    const g = groups.get(d)!;
    out.set(
      d,
      [...g.keys()].sort().map((k) => g.get(k)!),
    );
  }
  return out;
}

/** Slope and intercept over resamples of the trajectories (NaN where a resample fits no line). */
function resampleFits(clusters: readonly LengthPoint[][], settings: BootstrapSettings, label: string) {
  const rng = mulberry32(deriveSeed(settings.seed, label));
  const slope = new Float64Array(settings.resamples);
  const intercept = new Float64Array(settings.resamples);
  const k = clusters.length;
  for (let b = 0; b < settings.resamples; b++) {
    const drawn: LengthPoint[] = [];
    for (let i = 0; i < k; i++) drawn.push(...clusters[Math.floor(rng() * k)]!);
    const fit = fitLength(drawn);
    slope[b] = fit?.slope ?? NaN;
    intercept[b] = fit?.intercept ?? NaN;
  }
  return { slope, intercept };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The length figures of one run. The macro interval averages the domains'
 * intercepts resample by resample (each domain resampled on its own, as the
 * leaderboard's macro interval); a resample where a domain fits no line
 * stays out of it. Without `settings`: no intervals, nothing flagged.
 */
export function lengthBias(points: readonly LengthPoint[], settings: BootstrapSettings | undefined): LengthBias {
  const domains: DomainLengthBias[] = [];
  const macroSamples = settings ? new Float64Array(settings.resamples) : undefined;
  for (const [domain, clusters] of byDomain(points)) {
    const rows = clusters.flat();
    const fit = fitLength(rows);
    const sampled = settings && fit ? resampleFits(clusters, settings, `length:${domain}`) : undefined;
    const slopeCi = sampled && percentileInterval(sampled.slope);
    if (sampled && macroSamples) for (let b = 0; b < macroSamples.length; b++) macroSamples[b]! += sampled.intercept[b]!;
    domains.push({
      domain,
      rows: rows.length,
      mean: rows.reduce((s, p) => s + p.total, 0) / rows.length,
      medianRatio: 2 ** median(rows.map((p) => p.logRatio)),
      fit,
      slopeCi,
      lcCi: sampled && percentileInterval(sampled.intercept),
      biased: slopeCi !== undefined && (slopeCi.lo > 0 || slopeCi.hi < 0),
    });
  }
  const fitted = domains.filter((d) => d.fit);
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
  if (macroSamples) for (let b = 0; b < macroSamples.length; b++) macroSamples[b]! /= fitted.length;
  return {
    domains,
    lc: avg(fitted.map((d) => d.fit!.intercept)),
    lcCi: macroSamples && fitted.length ? percentileInterval(macroSamples) : undefined,
    mean: avg(fitted.map((d) => d.mean)),
  };
}
