import { compareDomains } from '../domains.js';
import {
  groupClusters,
  stratifiedIntervals,
  type BootstrapSettings,
  type ClusterPart,
  type Interval,
  type ScoreWarning,
} from '../score/index.js';
import type { AgreementWarning } from './faults.js';
import { DIMENSIONS } from '../schemas/index.js';
import { matchUnits, type GradedRow, type Unit } from './match.js';
import { exactAgreement, krippendorffAlpha, pearson, quadraticKappa } from './stats.js';
import { fail } from '../errors.js';

/** The five dimensions and the row's total, in the order of GradedRow.grades. */
export const AGREEMENT_DIMENSIONS = [...DIMENSIONS, 'total'] as const;
export type AgreementDimension = (typeof AGREEMENT_DIMENSIONS)[number];

/** The domain name of the figures over every domain. */
export const ALL = 'all';

/** One judge's file, read. */
export interface JudgeRun {
  file: string;
  label: string;
  rows: GradedRow[];
}

export interface DimensionAgreement {
  /** Rows valid on both sides with this grade on both. */
  rows: number;
  /** Share of those rows with the same grade (0..1). */
  exact: number;
  kappa: number;
  alpha: number;
  r: number;
  /** Judge A minus judge B in 0-100 points; over all domains, the mean of the domains' differences (as Overall is). */
  meanDiff: number;
  /** 95% trajectory-bootstrap interval of meanDiff. */
  ci: Interval | undefined;
}

export interface DomainAgreement {
  domain: string;
  /** Rows both files have. */
  matched: number;
  /** Of those, rows failed (no valid grades) on A's side, on B's: left out. */
  failedA: number;
  failedB: number;
  dims: Record<AgreementDimension, DimensionAgreement>;
}

export interface PairAgreement {
  /** Indices into the judges. */
  a: number;
  b: number;
  onlyA: number;
  onlyB: number;
  /** Matched rows whose predictions (`gen`) differ: the files judged different texts there. */
  differentGen: number;
  /** Per domain in leaderboard order, then ALL. */
  domains: DomainAgreement[];
}

/** Krippendorff's alpha over all judges at once (three or more). */
export interface PanelAgreement {
  domain: string;
  /** Rows that at least two judges graded validly. */
  units: number;
  alpha: Record<AgreementDimension, number>;
}

export interface AgreementReport {
  judges: Array<{ file: string; label: string; rows: number; failed: number }>;
  pairs: PairAgreement[];
  /** Per domain then ALL; undefined with two judges (the pair's alpha is the same figure). */
  panel: PanelAgreement[] | undefined;
  bootstrap: BootstrapSettings | undefined;
  /** Problems that did not stop the agreement: the files' (as score reads them), and pairs that judged other predictions. */
  warnings: Array<ScoreWarning | AgreementWarning>;
}

const valid = (r: GradedRow | undefined): r is GradedRow => r !== undefined && !r.failed;

/** Every pair of judges, and alpha over all of them when there are three or more. */
export function agreementOf(runs: readonly JudgeRun[], bootstrap: BootstrapSettings | undefined): AgreementReport {
  const units = matchUnits(runs.map((r) => r.rows));
  const pairs: PairAgreement[] = [];
  for (let a = 0; a < runs.length; a++) for (let b = a + 1; b < runs.length; b++) pairs.push(pairOf(runs, units, a, b, bootstrap));
  const warnings = pairs.flatMap((p): AgreementWarning[] =>
    p.differentGen ? [{ kind: 'judged-other-predictions', a: runs[p.a]!.file, b: runs[p.b]!.file, rows: p.differentGen }] : [],
  );
  return {
    judges: runs.map((r) => ({ file: r.file, label: r.label, rows: r.rows.length, failed: r.rows.filter((x) => x.failed).length })),
    pairs,
    panel: runs.length > 2 ? panelOf(units) : undefined,
    bootstrap,
    warnings,
  };
}

function byDomain(units: readonly Unit[]): Array<[string, Unit[]]> {
  const out = new Map<string, Unit[]>();
  for (const u of units) {
    const list = out.get(u.domain);
    if (list) list.push(u);
    else out.set(u.domain, [u]);
  }
  return [...[...out].sort(([x], [y]) => compareDomains(x, y)), [ALL, [...units]]];
}

function pairOf(
  runs: readonly JudgeRun[],
  all: readonly Unit[],
  a: number,
  b: number,
  bootstrap: BootstrapSettings | undefined,
): PairAgreement {
  const shared = all.filter((u) => u.rows[a] && u.rows[b]);
  if (shared.length === 0) throw fail({ kind: 'agreement-no-common-rows', a: runs[a]!.file, b: runs[b]!.file });
  const used = shared.filter((u) => valid(u.rows[a]) && valid(u.rows[b]));
  const intervals = bootstrap ? diffIntervals(used, a, b, bootstrap) : undefined;
  const domains = byDomain(shared).map(([domain, us]): DomainAgreement => {
    const dims = {} as Record<AgreementDimension, DimensionAgreement>;
    AGREEMENT_DIMENSIONS.forEach((dim, d) => {
      const pairs = us.flatMap((u) => gradePair(u, a, b, d));
      const stats = pairStats(
        pairs.map((p) => p[0]),
        pairs.map((p) => p[1]),
      );
      dims[dim] = { ...stats, ci: intervals?.[d]!.get(domain) };
      // Over all domains the difference is the mean of the domains' (each domain weighs the same, as in Overall).
      if (domain === ALL) dims[dim].meanDiff = meanOfDomains(shared, a, b, d);
    });
    return {
      domain,
      matched: us.length,
      failedA: us.filter((u) => u.rows[a]!.failed).length,
      failedB: us.filter((u) => u.rows[b]!.failed).length,
      dims,
    };
  });
  const gens = shared.filter((u) => u.rows[a]!.gen !== undefined && u.rows[b]!.gen !== undefined && u.rows[a]!.gen !== u.rows[b]!.gen);
  return {
    a,
    b,
    onlyA: all.filter((u) => u.rows[a] && !u.rows[b]).length,
    onlyB: all.filter((u) => !u.rows[a] && u.rows[b]).length,
    differentGen: gens.length,
    domains,
  };
}

/** The unit's grade `d` from judges a and b, when both rows are valid and both have it (0 is no grade). */
function gradePair(u: Unit, a: number, b: number, d: number): Array<[number, number]> {
  const x = u.rows[a];
  const y = u.rows[b];
  if (!valid(x) || !valid(y) || x.grades[d] === 0 || y.grades[d] === 0) return [];
  return [[x.grades[d]!, y.grades[d]!]];
}

/** Grades in sixtieths: 25 points per grade, as (mean − 1) / 4 · 100 normalizes. */
const points = (sixtieths: number): number => (25 * sixtieths) / 60;

function pairStats(x: number[], y: number[]): Omit<DimensionAgreement, 'ci'> {
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff += x[i]! - y[i]!;
  return {
    rows: x.length,
    exact: exactAgreement(x, y),
    kappa: quadraticKappa(x, y),
    alpha: krippendorffAlpha(x.map((v, i) => [v, y[i]!])),
    r: pearson(x, y),
    meanDiff: x.length ? points(diff / x.length) : NaN,
  };
}

function meanOfDomains(shared: readonly Unit[], a: number, b: number, d: number): number {
  const diffs = byDomain(shared)
    .filter(([domain]) => domain !== ALL)
    .map(([, us]) => pairStats(...unzip(us.flatMap((u) => gradePair(u, a, b, d)))).meanDiff)
    .filter((v) => !Number.isNaN(v));
  return diffs.length ? diffs.reduce((s, v) => s + v, 0) / diffs.length : NaN;
}

function unzip(pairs: ReadonlyArray<[number, number]>): [number[], number[]] {
  return [pairs.map((p) => p[0]), pairs.map((p) => p[1])];
}

/**
 * Per dimension, the 95% intervals of the mean difference per domain and
 * (under ALL) of the mean over domains: whole trajectories resampled within
 * each domain, as score's intervals are.
 */
function diffIntervals(used: readonly Unit[], a: number, b: number, settings: BootstrapSettings): Array<Map<string, Interval | undefined>> {
  return AGREEMENT_DIMENSIONS.map((_, d) => {
    const parts: ClusterPart[] = used.flatMap((u) =>
      gradePair(u, a, b, d).map(([x, y]) => ({ group: u.domain, cluster: u.cluster, sum: x - y, n: 1 })),
    );
    const { groups, mean } = stratifiedIntervals(groupClusters(parts), settings, (sum, n) => (n ? points(sum / n) : NaN));
    return new Map([...groups, [ALL, mean]]);
  });
}

function panelOf(units: readonly Unit[]): PanelAgreement[] {
  return byDomain(units).map(([domain, us]) => {
    const alpha = {} as Record<AgreementDimension, number>;
    AGREEMENT_DIMENSIONS.forEach((dim, d) => {
      const values = us.map((u) => u.rows.filter(valid).flatMap((r) => (r.grades[d] ? [r.grades[d]!] : [])));
      alpha[dim] = krippendorffAlpha(values);
    });
    return { domain, units: us.filter((u) => u.rows.filter(valid).length >= 2).length, alpha };
  });
}
