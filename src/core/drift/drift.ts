import { compareDomains } from '../domains.js';
import { fail } from '../errors.js';
import type { Horizon } from '../schemas/index.js';
import type { DriftNotice } from './faults.js';
import {
  SIXTIETHS,
  Ratio,
  comparabilityNotes,
  groupClusters,
  labelRuns,
  normalizedFloat,
  normalizedMean,
  readJudged,
  readProvenance,
  stratifiedIntervals,
  type BootstrapSettings,
  type ClusterPart,
  type ComparabilityNote,
  type ScoreWarning,
  type Interval,
  type JudgedRecord,
  type Provenance,
} from '../score/index.js';

/*
 * How far a world model drifts on its own predictions (issue 53): judged runs
 * of one model at several free-running horizons (infer --horizon), one of them
 * teacher-forced (H = 0), scored on the rows valid in every run. Per domain
 * and Overall (macro, the mean of the domains): the score at each horizon,
 * the drop Δ(H) = S(0) − S(H), and its paired 95% bootstrap interval, which
 * resamples whole trajectories (a trajectory's rows at every horizon come in
 * or stay out together). A drop is significant when its interval lies above
 * 0; the curve's first such horizon is where drift begins to show.
 */

/** One judged run of the curve. */
export interface DriftRun {
  file: string;
  label: string;
  horizon: Horizon;
  /** Its rows (of the domains asked for). */
  rows: number;
  provenance: Provenance;
}

/** The score at one horizon, and its drop from the teacher-forced score. */
export interface DriftPoint {
  horizon: Horizon;
  /** 0–100 over the rows valid in every run; undefined when the domain has none. */
  score: Ratio | undefined;
  scoreCi?: Interval;
  /** S(0) − S(H), in points (0 at H = 0). */
  drop: Ratio | undefined;
  dropCi?: Interval;
  /** The drop's interval lies above 0 (never at H = 0, nor without intervals). */
  significant: boolean;
}

export interface DriftCurve {
  /** A domain, or OVERALL. */
  scope: string;
  /** Rows valid in every run, and their trajectories (Overall: summed over the domains). */
  rows: number;
  trajectories: number;
  points: DriftPoint[];
  /** The smallest horizon whose drop is significant. */
  firstSignificant?: Horizon;
}

export interface DriftReport {
  /** The runs, teacher-forced first, then by horizon ('all' last). */
  runs: DriftRun[];
  /** Per domain in leaderboard order, then Overall (the macro mean of those domains). */
  curves: DriftCurve[];
  /** Rows keyed in every run whose result failed in some run: left out of every figure. */
  leftOut: { failed: number; missing: number };
  bootstrap?: BootstrapSettings;
  /** Why the runs may not be one model's comparable runs, and rows left out, in the order they are said. */
  notes: Array<ComparabilityNote | DriftNotice>;
  warnings: ScoreWarning[];
}

export const OVERALL = 'overall';

export interface DriftOptions {
  bootstrap?: BootstrapSettings;
  /** Only these domains (canonical). */
  domains?: string[];
}

/** Horizons in curve order: 0, 1, 2, …, then 'all'. */
export function horizonOrder(a: Horizon, b: Horizon): number {
  const n = (h: Horizon) => (h === 'all' ? Infinity : h);
  return n(a) - n(b);
}

/**
 * Reads the judged runs and draws their drift curve. Each file is one
 * horizon (its rows' `horizon`, absent: teacher-forced); exactly one is
 * teacher-forced, and no horizon comes twice.
 */
export async function driftFiles(files: readonly string[], opts: DriftOptions = {}): Promise<DriftReport> {
  const warnings: ScoreWarning[] = [];
  const read: { file: string; horizon: Horizon; records: JudgedRecord[]; provenance: Provenance }[] = [];
  for (const file of files) {
    const judged = await readJudged(file);
    warnings.push(...judged.warnings);
    if (judged.mode === 'turing' || judged.mode === 'pairwise') throw fail({ kind: 'choice-file-has-no-grades', file, mode: judged.mode });
    if (!judged.records.length) throw fail({ kind: 'judged-file-empty', file });
    const horizons = new Set(judged.records.map((r) => r.horizon ?? 0));
    if (horizons.size > 1) throw fail({ kind: 'drift-file-mixes-horizons', file, horizons: [...horizons].sort(horizonOrder).map(String) });
    const records = opts.domains ? judged.records.filter((r) => opts.domains!.includes(r.domain)) : judged.records;
    const { provenance, warnings: more } = await readProvenance(file);
    warnings.push(...more);
    read.push({ file, horizon: [...horizons][0]!, records, provenance });
  }
  read.sort((a, b) => horizonOrder(a.horizon, b.horizon));
  for (let i = 1; i < read.length; i++) {
    if (read[i]!.horizon === read[i - 1]!.horizon) {
      throw fail({ kind: 'drift-horizon-twice', horizon: String(read[i]!.horizon), files: [read[i - 1]!.file, read[i]!.file] });
    }
  }
  if (read[0]?.horizon !== 0) throw fail({ kind: 'drift-no-teacher-forced', files: [...files] });
  if (read.length < 2) throw fail({ kind: 'drift-no-free-running', file: read[0].file });

  const labels = labelRuns(read.map((r) => ({ file: r.file, model: r.provenance.model, label: r.provenance.label })));
  const runs: DriftRun[] = read.map((r, i) => ({
    file: r.file,
    label: labels[i]!,
    horizon: r.horizon,
    rows: r.records.length,
    provenance: r.provenance,
  }));

  const { curves, leftOut, rows } = driftOfRuns(read, opts.bootstrap);
  if (!rows) throw fail({ kind: 'drift-no-rows-in-common', files: [...files] });

  const notes: DriftReport['notes'] = comparabilityNotes(
    runs.map((r) => ({
      label: r.label,
      file: r.file,
      // The horizons differ on purpose; everything else must not.
      provenance: { ...r.provenance, horizon: undefined },
      domains: [...new Set(read.find((x) => x.file === r.file)!.records.map((rec) => rec.domain))],
    })),
    { coverage: false },
  ).filter((n) => n.kind !== 'run-incomplete');
  const models = new Set(runs.map((r) => r.provenance.model).filter((m) => m !== undefined));
  if (models.size > 1) notes.push({ kind: 'drift-models-differ', models: [...models] });
  if (leftOut.missing + leftOut.failed) notes.push({ kind: 'drift-rows-left-out', ...leftOut, rows });
  for (const r of runs) if (r.provenance.complete === false) notes.push({ kind: 'drift-run-incomplete', run: r.label });
  return { runs, curves, leftOut, ...(opts.bootstrap ? { bootstrap: opts.bootstrap } : {}), notes, warnings };
}

/**
 * The curves of runs in horizon order, the teacher-forced one first, on the rows valid in every run (the curve
 * compares the same rows at each horizon); `rows`: how many.
 */
export function driftOfRuns(
  runs: readonly { horizon: Horizon; records: readonly JudgedRecord[] }[],
  bootstrap?: BootstrapSettings,
): { curves: DriftCurve[]; leftOut: DriftReport['leftOut']; rows: number } {
  const byKey = runs.map((r) => new Map(r.records.map((rec) => [rec.key, rec])));
  const common: JudgedRecord[][] = [];
  const leftOut = { failed: 0, missing: 0 };
  for (const base of runs[0]?.records ?? []) {
    const row = byKey.map((m) => m.get(base.key));
    if (row.some((r) => r === undefined)) leftOut.missing++;
    else if (row.some((r) => r!.failed || r!.total === 0)) leftOut.failed++;
    else common.push(row as JudgedRecord[]);
  }
  const curves = common.length
    ? curvesOf(
        common,
        runs.map((r) => r.horizon),
        bootstrap,
      )
    : [];
  return { curves, leftOut, rows: common.length };
}

/** Points per domain, then Overall; `rows[i][h]`: row i's record in the run at horizons[h]. */
export function curvesOf(
  rows: readonly (readonly JudgedRecord[])[],
  horizons: readonly Horizon[],
  bootstrap?: BootstrapSettings,
): DriftCurve[] {
  const domains = [...new Set(rows.map((r) => r[0]!.domain))].sort(compareDomains);
  const sums = new Map(domains.map((d) => [d, { rows: 0, trajectories: new Set<string>(), totals: horizons.map(() => 0) }]));
  for (const row of rows) {
    const s = sums.get(row[0]!.domain)!;
    s.rows++;
    s.trajectories.add(row[0]!.cluster);
    row.forEach((rec, h) => (s.totals[h]! += rec.total));
  }
  // Per horizon: each trajectory's summed totals (for S(H)) and summed paired drops S(0) − S(H) (for Δ).
  const intervals = horizons.map((_, h) => {
    if (!bootstrap) return undefined;
    const part = (row: readonly JudgedRecord[], sum: number): ClusterPart => ({
      group: row[0]!.domain,
      cluster: row[0]!.cluster,
      sum,
      n: 1,
    });
    const scores = stratifiedIntervals(groupClusters(rows.map((row) => part(row, row[h]!.total))), bootstrap, normalizedFloat);
    const drops = stratifiedIntervals(groupClusters(rows.map((row) => part(row, row[0]!.total - row[h]!.total))), bootstrap, dropFloat);
    return { scores, drops };
  });
  const curve = (
    scope: string,
    rowCount: number,
    trajectories: number,
    point: (h: number) => Omit<DriftPoint, 'significant'>,
  ): DriftCurve => {
    const points = horizons.map((horizon, h) => {
      const p = point(h);
      return { ...p, significant: h > 0 && p.dropCi !== undefined && p.dropCi.lo > 0 };
    });
    const first = points.find((p) => p.significant)?.horizon;
    return { scope, rows: rowCount, trajectories, points, ...(first !== undefined ? { firstSignificant: first } : {}) };
  };
  const curves = domains.map((d) => {
    const s = sums.get(d)!;
    return curve(d, s.rows, s.trajectories.size, (h) => {
      const score = normalizedMean(s.totals[h]!, s.rows);
      const base = normalizedMean(s.totals[0]!, s.rows);
      const ci = intervals[h];
      return {
        horizon: horizons[h]!,
        score,
        ...(ci?.scores.groups.get(d) ? { scoreCi: ci.scores.groups.get(d)! } : {}),
        drop: score && base && base.sub(score),
        ...(h > 0 && ci?.drops.groups.get(d) ? { dropCi: ci.drops.groups.get(d)! } : {}),
      };
    });
  });
  const macro = (values: (Ratio | undefined)[]) =>
    values.every((v) => v !== undefined) && values.length ? values.reduce((a, b) => a!.add(b!))!.div(Ratio.of(values.length)) : undefined;
  curves.push(
    curve(
      OVERALL,
      rows.length,
      curves.reduce((n, c) => n + c.trajectories, 0),
      (h) => {
        const ci = intervals[h];
        return {
          horizon: horizons[h]!,
          score: macro(curves.map((c) => c.points[h]!.score)),
          ...(ci?.scores.mean ? { scoreCi: ci.scores.mean } : {}),
          drop: macro(curves.map((c) => c.points[h]!.drop)),
          ...(h > 0 && ci?.drops.mean ? { dropCi: ci.drops.mean } : {}),
        };
      },
    ),
  );
  return curves;
}

/** A drop in sixtieths summed over n rows, as points on the 0–100 scale. */
function dropFloat(sum: number, n: number): number {
  return n === 0 ? NaN : (sum / n / SIXTIETHS / 4) * 100;
}
