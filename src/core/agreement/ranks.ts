import { compareDomains } from '../domains.js';
import { fail } from '../errors.js';
import { deriveSeed, meanOf, mulberry32, normalizedFloat, percentileInterval } from '../score/index.js';
import type { BootstrapSettings, Interval, Ratio } from '../score/index.js';
import type { GradedRow } from './match.js';
import { kendallTau } from './stats.js';

/** One model judged by one judge. */
export interface RankedRun {
  file: string;
  model: string;
  judge: string;
  rows: GradedRow[];
  /** Each domain's 0-100 score as `awb score` prints it (undefined: no valid row). */
  domainScores: ReadonlyMap<string, Ratio | undefined>;
}

export interface JudgePairTau {
  a: number;
  b: number;
  /** Models both judges scored. */
  models: number;
  tau: number;
  ci: Interval | undefined;
}

/** How firmly two models are ordered, under each judge and across judges. */
export interface ModelPair {
  first: number;
  second: number;
  /** Per judge: first minus second in points, and the share of resamples that order them the other way. */
  judges: Array<{ diff: number | undefined; swapped: number | undefined }>;
  /** Share of resamples in which the judges do not all order the pair alike. */
  disagree: number | undefined;
}

export interface RankReport {
  /** Best first under the first judge. */
  models: string[];
  judges: string[];
  /** The domains every run has a score for: each Overall is their mean, so all are over the same domains. */
  domains: string[];
  /** Domains some run lacks a score for, left out of every Overall. */
  leftOut: string[];
  /** [model][judge]: Overall (mean of `domains`), exact; undefined where that model was not judged by that judge. */
  scores: Array<Array<Ratio | undefined>>;
  /** [model][judge]: 1 for the judge's best. */
  ranks: Array<Array<number | undefined>>;
  taus: JudgePairTau[];
  pairs: ModelPair[];
  bootstrap: BootstrapSettings | undefined;
}

/**
 * One leaderboard per judge over the same models, Kendall's tau between
 * every two of them, and how stable each pair of models' order is. The
 * bootstrap draws the same trajectories for every run (they are the same
 * dataset rows), domain by domain, so the leaderboards of one resample are
 * paired as the real ones are.
 */
export function rankStability(runs: readonly RankedRun[], bootstrap: BootstrapSettings | undefined): RankReport {
  const judges = [...new Set(runs.map((r) => r.judge))];
  const seen = new Map<string, string>();
  for (const r of runs) {
    const key = JSON.stringify([r.model, r.judge]);
    const first = seen.get(key);
    if (first !== undefined) throw fail({ kind: 'agreement-run-twice', model: r.model, judge: r.judge, first, second: r.file });
    seen.set(key, r.file);
  }
  const names = [...new Set(runs.map((r) => r.model))];
  if (names.length < 2 || judges.length < 2) throw fail({ kind: 'agreement-too-few-runs', models: names.length, judges: judges.length });

  const all = [...new Set(runs.flatMap((r) => [...r.domainScores.keys()]))].sort(compareDomains);
  const domains = all.filter((d) => runs.every((r) => r.domainScores.get(d) !== undefined));
  const overall = (r: RankedRun) => meanOf(domains.map((d) => r.domainScores.get(d)!));
  const grid = (scores: (r: RankedRun) => number, model: string) =>
    judges.map((j) => {
      const r = runs.find((x) => x.model === model && x.judge === j);
      return r ? scores(r) : NaN;
    });
  const point = names.map((m) => grid((r) => overall(r)?.toNumber() ?? NaN, m));
  // Best first under the first judge; models it did not judge last, then by name.
  const lead = (i: number) => (Number.isNaN(point[i]![0]!) ? -Infinity : point[i]![0]!);
  const order = names.map((_, i) => i).sort((x, y) => lead(y) - lead(x) || (names[x]! < names[y]! ? -1 : 1));
  const models = order.map((i) => names[i]!);
  const at = (m: string, j: number) => runs.find((x) => x.model === m && x.judge === judges[j]);
  const scores = models.map((m) =>
    judges.map((_, j) => {
      const r = at(m, j);
      return r && overall(r);
    }),
  );
  const values = scores.map((row) => row.map((s) => s?.toNumber() ?? NaN));
  const ranks = models.map((_, m) =>
    judges.map((_, j) =>
      rankOf(
        values.map((row) => row[j]!),
        m,
      ),
    ),
  );

  const samples = bootstrap ? resampleOveralls(runs, models, judges, domains, bootstrap) : undefined;
  const taus: JudgePairTau[] = [];
  for (let a = 0; a < judges.length; a++)
    for (let b = a + 1; b < judges.length; b++) {
      const col = (j: number) => values.map((row) => row[j]!);
      taus.push({
        a,
        b,
        models: values.filter((row) => !Number.isNaN(row[a]!) && !Number.isNaN(row[b]!)).length,
        tau: kendallTau(col(a), col(b)),
        ci:
          samples &&
          percentileInterval(
            Float64Array.from(samples, (s) =>
              kendallTau(
                s.map((row) => row[a]!),
                s.map((row) => row[b]!),
              ),
            ),
          ),
      });
    }
  const pairs: ModelPair[] = [];
  for (let first = 0; first < models.length; first++)
    for (let second = first + 1; second < models.length; second++) pairs.push(pairOf(values, samples, first, second));
  return { models, judges, domains, leftOut: all.filter((d) => !domains.includes(d)), scores, ranks, taus, pairs, bootstrap };
}

/** 1 + how many scored models are strictly ahead; undefined without a score. */
function rankOf(column: readonly number[], m: number): number | undefined {
  const v = column[m]!;
  return Number.isNaN(v) ? undefined : 1 + column.filter((x) => x > v).length;
}

function pairOf(values: number[][], samples: number[][][] | undefined, first: number, second: number): ModelPair {
  const diff = (grid: number[][], j: number) => grid[first]![j]! - grid[second]![j]!;
  const judges = values[0]!.map((_, j) => {
    const d = diff(values, j);
    if (Number.isNaN(d)) return { diff: undefined, swapped: undefined };
    if (!samples) return { diff: d, swapped: undefined };
    const drawn = samples.map((s) => diff(s, j)).filter((x) => !Number.isNaN(x));
    return { diff: d, swapped: drawn.length ? drawn.filter((x) => Math.sign(x) !== Math.sign(d)).length / drawn.length : undefined };
  });
  let disagree: number | undefined;
  if (samples) {
    const split = samples
      .map((s) => new Set(values[0]!.map((_, j) => Math.sign(diff(s, j))).filter((x) => !Number.isNaN(x))))
      .filter((signs) => signs.size > 0);
    disagree = split.length ? split.filter((signs) => signs.size > 1).length / split.length : undefined;
  }
  return { first, second, judges, disagree };
}

/**
 * Per resample, [model][judge] Overalls (NaN: not judged, or a domain came
 * out empty). Each domain draws its trajectories with replacement once per
 * resample, and every run is scored on that same draw.
 */
function resampleOveralls(
  runs: readonly RankedRun[],
  models: readonly string[],
  judges: readonly string[],
  domains: readonly string[],
  settings: BootstrapSettings,
): number[][][] {
  const tables = domains.map((domain) => {
    const clusters = [...new Set(runs.flatMap((r) => r.rows.filter((x) => x.domain === domain).map((x) => x.cluster)))].sort();
    const index = new Map(clusters.map((c, i) => [c, i]));
    const perRun = runs.map((r) => {
      const sum = new Float64Array(clusters.length);
      const n = new Float64Array(clusters.length);
      for (const x of r.rows)
        if (x.domain === domain && !x.failed && x.grades.at(-1)! > 0) {
          sum[index.get(x.cluster)!]! += x.grades.at(-1)!;
          n[index.get(x.cluster)!]! += 1;
        }
      return { sum, n };
    });
    return { k: clusters.length, perRun };
  });
  const cell = models.map((m) => judges.map((j) => runs.findIndex((r) => r.model === m && r.judge === j)));
  const rng = mulberry32(deriveSeed(settings.seed, 'by-model'));
  const out: number[][][] = [];
  for (let b = 0; b < settings.resamples; b++) {
    const overall = new Float64Array(runs.length);
    for (const { k, perRun } of tables) {
      const drawn = Array.from({ length: k }, () => Math.floor(rng() * k));
      perRun.forEach(({ sum, n }, f) => {
        let s = 0;
        let c = 0;
        for (const i of drawn) {
          s += sum[i]!;
          c += n[i]!;
        }
        overall[f]! += normalizedFloat(s, c) / domains.length;
      });
    }
    out.push(cell.map((row) => row.map((f) => (f < 0 ? NaN : overall[f]!))));
  }
  return out;
}
