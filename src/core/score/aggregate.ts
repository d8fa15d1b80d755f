import {
  bootstrapClusters,
  groupClusters,
  percentileInterval,
  stratifiedIntervals,
  type BootstrapSettings,
  type Cluster,
  type Interval,
} from './bootstrap.js';
import { compareDomains } from '../domains.js';
import { type Ratio, SIXTIETHS, doubleUnits, meanOf, normalizedFloat, officialScore } from './exact.js';
import type { JudgedRecord } from './readers/index.js';
import { DIMENSIONS } from '../schemas/index.js';

/** A mean in the making: `sum` sixtieths over `count` non-zero values; `units`, the same values as the official script's doubles (doubleUnits). */
export interface MeanStat {
  sum: number;
  count: number;
  units: bigint;
}

/** The 0-100 score of a mean as the official script prints it; undefined when no value counts. */
export function statScore(stat: MeanStat): Ratio | undefined {
  return officialScore(stat.units, stat.count);
}

export interface ScoreOptions {
  /** Score failed rows as the lowest grade (1 everywhere) instead of leaving them out. */
  failuresAsLowest: boolean;
}

export interface TurnBucket {
  label: string;
  min: number;
  max: number;
}

/** Doubling buckets: early turns one by one, then ever longer histories. */
export const TURN_BUCKETS: readonly TurnBucket[] = [
  { label: '1', min: 1, max: 1 },
  { label: '2', min: 2, max: 2 },
  { label: '3-4', min: 3, max: 4 },
  { label: '5-8', min: 5, max: 8 },
  { label: '9-16', min: 9, max: 16 },
  { label: '17+', min: 17, max: Infinity },
];

export function turnBucket(turn: number): number {
  return TURN_BUCKETS.findIndex((b) => turn >= b.min && turn <= b.max);
}

export interface TurnScore {
  bucket: string;
  rows: number;
  valid: number;
  total: MeanStat;
}

export interface DomainScore {
  domain: string;
  rows: number;
  valid: number;
  failed: number;
  /** In DIMENSIONS order. */
  dims: MeanStat[];
  total: MeanStat;
  /** Normalized 0-100 total as the official script prints it (statScore); undefined when no row counts. */
  score: Ratio | undefined;
  /** Turn buckets that have rows, in TURN_BUCKETS order. */
  turns: TurnScore[];
}

export interface RunScore {
  /** In leaderboard order. */
  domains: DomainScore[];
  rows: number;
  valid: number;
  failed: number;
  /** Mean of the domain scores: the published leaderboard's Overall. */
  macro: Ratio | undefined;
  /** Domains the macro mean averages (those with a score). */
  macroDomains: number;
  /** Mean over all counted rows' totals: the Overall the official script prints. */
  micro: MeanStat;
  /** All domains together, per turn bucket that has rows (micro: rows pooled). */
  turns: TurnScore[];
}

/**
 * The row's grades as they enter the means, or undefined when the row stays
 * out. Zeros inside a valid row mean "no score" and are skipped value by value.
 */
function countedScores(r: JudgedRecord, opts: ScoreOptions): { dims: readonly number[]; total: number } | undefined {
  if (!r.failed) return r;
  return opts.failuresAsLowest ? LOWEST : undefined;
}

const LOWEST = { dims: DIMENSIONS.map(() => SIXTIETHS), total: SIXTIETHS };

function add(stat: MeanStat, value: number): void {
  if (value !== 0) {
    stat.sum += value;
    stat.count += 1;
    stat.units += doubleUnits(value);
  }
}

const emptyStat = (): MeanStat => ({ sum: 0, count: 0, units: 0n });

/** The official aggregation, exactly: per domain, per dimension and total, zeros skipped, failed rows out (or at the lowest grade). */
export function aggregate(records: readonly JudgedRecord[], opts: ScoreOptions): RunScore {
  const byDomain = new Map<string, DomainScore & { buckets: TurnScore[] }>();
  const micro = emptyStat();
  const allBuckets = emptyBuckets();
  for (const r of records) {
    let d = byDomain.get(r.domain);
    if (!d) {
      d = {
        domain: r.domain,
        rows: 0,
        valid: 0,
        failed: 0,
        dims: DIMENSIONS.map(emptyStat),
        total: emptyStat(),
        score: undefined,
        turns: [],
        buckets: emptyBuckets(),
      };
      byDomain.set(r.domain, d);
    }
    const b = turnBucket(r.turn);
    const buckets = [d.buckets[b]!, allBuckets[b]!];
    d.rows++;
    for (const bucket of buckets) bucket.rows++;
    if (r.failed) d.failed++;
    else {
      d.valid++;
      for (const bucket of buckets) bucket.valid++;
    }
    const s = countedScores(r, opts);
    if (!s) continue;
    s.dims.forEach((v, i) => add(d.dims[i]!, v));
    add(d.total, s.total);
    for (const bucket of buckets) add(bucket.total, s.total);
    add(micro, s.total);
  }
  const domains = [...byDomain.values()]
    .sort((a, b) => compareDomains(a.domain, b.domain))
    .map(({ buckets, ...d }) => ({ ...d, score: statScore(d.total), turns: buckets.filter((b) => b.rows > 0) }));
  const scored = domains.flatMap((d) => (d.score ? [d.score] : []));
  return {
    domains,
    rows: records.length,
    valid: domains.reduce((n, d) => n + d.valid, 0),
    failed: domains.reduce((n, d) => n + d.failed, 0),
    macro: meanOf(scored),
    macroDomains: scored.length,
    micro,
    turns: allBuckets.filter((b) => b.rows > 0),
  };
}

const emptyBuckets = (): TurnScore[] => TURN_BUCKETS.map((b) => ({ bucket: b.label, rows: 0, valid: 0, total: emptyStat() }));

/** The key of the all-domains turn row in RunIntervals.turns. */
export const ALL_DOMAINS = '*';

/**
 * Per group (by default the domain), each trajectory's counted totals, in a
 * fixed order (sorted by trajectory) so resamples do not depend on file
 * order. Rows whose group is undefined stay out.
 */
export function clustersByDomain(
  records: readonly JudgedRecord[],
  opts: ScoreOptions,
  groupOf: (r: JudgedRecord) => string | undefined = (r) => r.domain,
): Map<string, Cluster[]> {
  const parts = records.flatMap((r) => {
    const group = groupOf(r);
    if (group === undefined) return [];
    // Trajectories whose rows all stay out are still drawn: they are part of what a rerun could produce.
    const s = countedScores(r, opts);
    const counted = s !== undefined && s.total !== 0;
    return [{ group, cluster: r.cluster, sum: counted ? s.total : 0, n: counted ? 1 : 0 }];
  });
  return groupClusters(parts);
}

export interface RunIntervals {
  domains: Map<string, Interval | undefined>;
  macro: Interval | undefined;
  micro: Interval | undefined;
  /** With --by turn: domain (or ALL_DOMAINS) → turn bucket label → interval. */
  turns: Map<string, Map<string, Interval | undefined>>;
}

/**
 * 95% percentile intervals of the normalized totals, resampling whole
 * trajectories within each domain. Macro: every domain resampled
 * independently, then averaged; micro: trajectories resampled across all
 * domains together, as its point estimate pools them.
 */
export function scoreIntervals(
  records: readonly JudgedRecord[],
  opts: ScoreOptions,
  settings: BootstrapSettings,
  byTurn = false,
): RunIntervals {
  const byDomain = clustersByDomain(records, opts);
  const stratified = stratifiedIntervals(byDomain, settings, normalizedFloat);
  const pooled = [...byDomain.values()].flat();
  const domains = new Map([...stratified.groups].map(([d, ci]) => [d, spread(byDomain.get(d)!, ci)]));
  return {
    domains,
    macro: stratified.mean,
    micro: spread(pooled, percentileInterval(bootstrapClusters(pooled, settings, 'pooled', normalizedFloat))),
    turns: byTurn ? turnIntervals(records, opts, settings) : new Map(),
  };
}

/**
 * An interval only where trajectories can differ: resampling one scored
 * trajectory always gives its own score, an interval of width 0 that would
 * read as perfect precision. Drawn all the same, so the seeds of the others stay put.
 */
function spread(clusters: readonly Cluster[], ci: Interval | undefined): Interval | undefined {
  return clusters.filter((c) => c.n > 0).length >= 2 ? ci : undefined;
}

/**
 * Per domain and turn bucket, and per bucket over all domains: the turns of
 * a bucket resampled by trajectory (a trajectory's turns within the bucket
 * come in or stay out together).
 */
function turnIntervals(records: readonly JudgedRecord[], opts: ScoreOptions, settings: BootstrapSettings): RunIntervals['turns'] {
  const out: RunIntervals['turns'] = new Map();
  const label = (r: JudgedRecord): string => TURN_BUCKETS[turnBucket(r.turn)]!.label;
  const put = (scope: string, bucket: string, clusters: readonly Cluster[]): void => {
    let m = out.get(scope);
    if (!m) out.set(scope, (m = new Map()));
    const samples = bootstrapClusters(clusters, settings, `turn:${scope}:${bucket}`, normalizedFloat);
    m.set(bucket, spread(clusters, percentileInterval(samples)));
  };
  for (const [group, clusters] of clustersByDomain(records, opts, (r) => `${r.domain}\u0000${label(r)}`)) {
    const [domain, bucket] = group.split('\u0000') as [string, string];
    put(domain, bucket, clusters);
  }
  for (const [bucket, clusters] of clustersByDomain(records, opts, label)) put(ALL_DOMAINS, bucket, clusters);
  return out;
}
