import { compareDomains } from '../domains.js';
import { type Ratio, SIXTIETHS, meanOf, normalizedMean } from '../score/index.js';
import type { JudgedRecord } from '../score/index.js';
import { displayKey, splitKey } from '../rows/index.js';
import { DIMENSIONS } from '../schemas/index.js';
import type { Cluster, Interval } from '../score/index.js';
import { clusterSpread, meanSpread, tInterval, type Spread } from './spread.js';

export type { Spread } from './spread.js';

/** Rows present on one side only. */
export interface Unpaired {
  count: number;
  /** A few of them, readable (domain, id, turn), in key order. */
  examples: string[];
}

export interface Delta {
  /** Normalized 0-100 scores over the rows used, exact. */
  baseline: Ratio | undefined;
  candidate: Ratio | undefined;
  /** candidate − baseline, in points. */
  delta: Ratio | undefined;
  /** Two-sided 95% t interval of the delta (not adjusted for the number of tests). */
  ci: Interval | undefined;
  spread: Spread | undefined;
  /** Trajectories with at least one used row. */
  trajectories: number;
  /** Those trajectories' summed row deltas (points) and row counts: what the gate's sign-flip test draws on. */
  clusters: readonly Cluster[];
  /** Per dimension (DIMENSIONS order): candidate − baseline on the rows used, zero grades skipped per side. */
  dims: Array<Ratio | undefined>;
}

export interface DomainDelta extends Delta {
  domain: string;
  /** Rows present in both files. */
  paired: number;
  /** Paired rows valid on both sides with a total on both: the rows the delta is measured on. */
  used: number;
  /** Failed rows among the paired ones, per side. */
  baselineFailed: number;
  candidateFailed: number;
  /** Paired rows failed in the candidate whose baseline row is valid: left out of the delta, they make the candidate incomplete. */
  candidateLost: number;
  /** Those of them without a generation (inference failed); the others the judge gave no grade. */
  candidateUngenerated: number;
  /** Those whose judge request failed (outlasted its retries); the rest have a reply the judge's parser could not read. */
  candidateRequestFailed: number;
}

/** One paired row's change in total (0-100 points). */
export interface ChangedRow {
  /** `domain/id/turn_idx`, as the HTML report's links and `awb rows` print it. */
  key: string;
  baseline: Ratio;
  candidate: Ratio;
  delta: Ratio;
}

export interface CompareResult {
  onlyBaseline: Unpaired;
  onlyCandidate: Unpaired;
  domains: DomainDelta[];
  /** Macro: the mean over domains with used rows, as the leaderboard's Overall; row counts summed over domains. */
  overall: Delta & Omit<DomainDelta, 'domain' | keyof Delta> & { domains: number };
  /** The rows whose total changed most, largest change first (as many as asked for). */
  changed: ChangedRow[];
}

const EXAMPLES = 5;

const points = (sixtieths: number): number => (25 * sixtieths) / SIXTIETHS;
interface Side {
  total: number;
  dims: Array<{ sum: number; count: number }>;
}
const emptySide = (): Side => ({ total: 0, dims: DIMENSIONS.map(() => ({ sum: 0, count: 0 })) });

function addSide(side: Side, r: JudgedRecord): void {
  side.total += r.total;
  r.dims.forEach((v, i) => {
    if (v === 0) return;
    side.dims[i]!.sum += v;
    side.dims[i]!.count++;
  });
}

/**
 * Paired comparison. Each side is scored on the same rows (valid on both),
 * so the difference is not blurred by which rows happened to fail; the
 * spread comes from the paired differences, trajectory by trajectory.
 */
export function compareRecords(
  baseline: readonly JudgedRecord[],
  candidate: readonly JudgedRecord[],
  opts: { rows?: number } = {},
): CompareResult {
  const cand = new Map(candidate.map((r) => [r.key, r]));
  const baseKeys = new Set(baseline.map((r) => r.key));
  interface Acc {
    d: DomainDelta;
    base: Side;
    cand: Side;
    clusters: Map<string, Cluster>;
  }
  const acc = new Map<string, Acc>();
  const domainAcc = (domain: string): Acc => {
    let a = acc.get(domain);
    if (!a) {
      a = {
        d: {
          domain,
          paired: 0,
          used: 0,
          baselineFailed: 0,
          candidateFailed: 0,
          candidateLost: 0,
          candidateUngenerated: 0,
          candidateRequestFailed: 0,
          ...emptyDelta(),
        },
        base: emptySide(),
        cand: emptySide(),
        clusters: new Map(),
      };
      acc.set(domain, a);
    }
    return a;
  };
  const onlyBaseline: string[] = [];
  const changed: ChangedRow[] = [];
  for (const b of baseline) {
    const a = domainAcc(b.domain);
    const c = cand.get(b.key);
    if (!c) {
      onlyBaseline.push(b.key);
      continue;
    }
    a.d.paired++;
    if (b.failed) a.d.baselineFailed++;
    if (c.failed) a.d.candidateFailed++;
    if (c.failed && !b.failed) {
      a.d.candidateLost++;
      if (c.noGeneration) a.d.candidateUngenerated++;
      else if (c.requestFailed) a.d.candidateRequestFailed++;
    }
    if (b.failed || c.failed || b.total === 0 || c.total === 0) continue;
    a.d.used++;
    addSide(a.base, b);
    addSide(a.cand, c);
    let cluster = a.clusters.get(b.cluster);
    if (!cluster) a.clusters.set(b.cluster, (cluster = { sum: 0, n: 0 }));
    cluster.sum += points(c.total - b.total);
    cluster.n++;
    if (opts.rows) changed.push(changedRow(b, c));
  }
  const onlyCandidate = candidate.filter((r) => !baseKeys.has(r.key)).map((r) => r.key);
  for (const r of candidate) domainAcc(r.domain);

  const domains = [...acc.keys()].sort(compareDomains).map((k) => acc.get(k)!);
  const measured = domains.filter((a) => a.d.used > 0);
  for (const a of measured) {
    const d = a.d;
    d.baseline = normalizedMean(a.base.total, d.used);
    d.candidate = normalizedMean(a.cand.total, d.used);
    d.delta = d.candidate!.sub(d.baseline!);
    d.clusters = [...a.clusters.keys()].sort().map((k) => a.clusters.get(k)!);
    d.trajectories = d.clusters.length;
    d.spread = clusterSpread(d.clusters);
    d.ci = tInterval(d.delta.toNumber(), d.spread);
    d.dims = DIMENSIONS.map((_, i) => {
      const [bs, cs] = [a.base.dims[i]!, a.cand.dims[i]!];
      const [bn, cn] = [normalizedMean(bs.sum, bs.count), normalizedMean(cs.sum, cs.count)];
      return bn && cn ? cn.sub(bn) : undefined;
    });
  }
  const mean = (pick: (d: DomainDelta) => Ratio | undefined): Ratio | undefined => {
    const values = measured.map((a) => pick(a.d));
    return values.every((v) => v !== undefined) ? meanOf(values as Ratio[]) : undefined;
  };
  const sum = (pick: (d: DomainDelta) => number): number => domains.reduce((n, a) => n + pick(a.d), 0);
  const spreads = measured.map((a) => a.d.spread);
  const overallSpread = measured.length && spreads.every((s) => s !== undefined) ? meanSpread(spreads as Spread[]) : undefined;
  const overallDelta = mean((d) => d.delta);
  changed.sort((x, y) => Math.abs(y.delta.toNumber()) - Math.abs(x.delta.toNumber()) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return {
    onlyBaseline: unpaired(onlyBaseline),
    onlyCandidate: unpaired(onlyCandidate),
    domains: domains.map((a) => a.d),
    overall: {
      baseline: mean((d) => d.baseline),
      candidate: mean((d) => d.candidate),
      delta: overallDelta,
      spread: overallSpread,
      ci: overallDelta ? tInterval(overallDelta.toNumber(), overallSpread) : undefined,
      trajectories: sum((d) => d.trajectories),
      clusters: [],
      dims: DIMENSIONS.map((_, i) => mean((d) => d.dims[i])),
      domains: measured.length,
      paired: sum((d) => d.paired),
      used: sum((d) => d.used),
      baselineFailed: sum((d) => d.baselineFailed),
      candidateFailed: sum((d) => d.candidateFailed),
      candidateLost: sum((d) => d.candidateLost),
      candidateUngenerated: sum((d) => d.candidateUngenerated),
      candidateRequestFailed: sum((d) => d.candidateRequestFailed),
    },
    changed: changed.slice(0, opts.rows ?? 0),
  };
}

function emptyDelta(): Delta {
  return {
    baseline: undefined,
    candidate: undefined,
    delta: undefined,
    ci: undefined,
    spread: undefined,
    trajectories: 0,
    clusters: [],
    dims: DIMENSIONS.map(() => undefined),
  };
}

function changedRow(b: JudgedRecord, c: JudgedRecord): ChangedRow {
  const k = splitKey(b.key);
  const baseline = normalizedMean(b.total, 1)!;
  const candidate = normalizedMean(c.total, 1)!;
  return { key: `${k.domain}/${k.id}/${k.turn}`, baseline, candidate, delta: candidate.sub(baseline) };
}

function unpaired(keys: string[]): Unpaired {
  return { count: keys.length, examples: keys.sort().slice(0, EXAMPLES).map(displayKey) };
}
