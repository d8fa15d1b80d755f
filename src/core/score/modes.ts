import { groupClusters, stratifiedIntervals, type BootstrapSettings, type ClusterPart, type Interval } from './bootstrap.js';
import { canonicalDomains } from '../domains.js';
import { Ratio, meanOf } from './exact.js';
import { readModeFile, type ChoiceRecord, type ModeVisitor, type RepeatRecord } from './readers/index.js';
import type { ScoreWarning } from './faults.js';

/*
 * The figures of the judge modes (issue 14), per domain and overall, each a
 * ratio of sums over rows so that the trajectory bootstrap of bootstrap.ts
 * applies unchanged:
 * - fooling_rate (turing): % of judgements (orders) in which the judge took
 *   the prediction for the real observation; 50 = indistinguishable.
 * - win_rate (pairwise): % of the candidate over the reference; a row won in
 *   both orders counts 1, lost in both 0, split (the orders disagree: the
 *   judge's tie) 1/2. That equals the % of orders preferring the candidate.
 * - position_consistency (both): % of rows whose two orders give the same
 *   verdict; a judge that always answers A has 0.
 * - judge_noise (repeat): mean over rows of the sample standard deviation
 *   of the row's valid repeated totals, on the 0-100 scale.
 * Choice rows count only with both orders answered: every counted row then
 * shows the subject once at A and once at B, so a position preference
 * cancels exactly instead of leaking through rows that lost one order.
 * A panel's row (judge --judge-model a,b,c) counts as one judge's does, with
 * its members' combined figures (the mean or median of theirs) in place of
 * one judge's 0, 1/2 or 1.
 */

export type ModeFigure = 'fooling_rate' | 'win_rate' | 'position_consistency' | 'judge_noise';

export interface Figure {
  /** Exact for the rates, a double for judge noise; undefined when no row counts. */
  value: Ratio | number | undefined;
  /** Rows behind the value. */
  rows: number;
  /** 95% trajectory-bootstrap interval, when asked for and defined. */
  interval?: Interval;
}

export interface ModeDomainScore {
  domain: string;
  rows: number;
  /** Rows that enter the figures (choice: both orders answered; repeat: two or more valid repeats). */
  counted: number;
  figures: Partial<Record<ModeFigure, Figure>>;
}

export interface ModeScore {
  mode: 'turing' | 'pairwise' | 'repeat';
  /** In leaderboard order. */
  domains: ModeDomainScore[];
  rows: number;
  counted: number;
  /** Mean of the domains' figures (each domain resampled on its own in the bootstrap), as the leaderboard's Overall. */
  overall: Partial<Record<ModeFigure, Figure>>;
}

interface FigureSpec {
  /** Sums are integers, so the value can be an exact ratio. */
  exact: boolean;
  scale: number;
}

const PERCENT: FigureSpec = { exact: true, scale: 100 };
/** Grades 1..5 map to 0..100 by (g - 1) * 25, so a spread of grades scales by 25. */
const NOISE: FigureSpec = { exact: false, scale: 25 };

export function scoreChoiceRows(mode: 'turing' | 'pairwise', records: readonly ChoiceRecord[], bootstrap?: BootstrapSettings): ModeScore {
  const rate: ClusterPart[] = [];
  const agree: ClusterPart[] = [];
  for (const { domain: group, cluster, figures: f } of records) {
    // Two orders a row: a panel's row weighs as much as one judge's.
    rate.push({ group, cluster, sum: f ? 2 * f.rate : 0, n: f ? 2 : 0 });
    agree.push({ group, cluster, sum: f ? f.consistent : 0, n: f ? 1 : 0 });
  }
  const rateName = mode === 'turing' ? 'fooling_rate' : 'win_rate';
  return assemble(
    mode,
    records,
    [
      [rateName, rate, PERCENT],
      ['position_consistency', agree, PERCENT],
    ],
    bootstrap,
  );
}

export function scoreRepeatRows(records: readonly RepeatRecord[], bootstrap?: BootstrapSettings): ModeScore {
  const items = records.map((r) => ({
    group: r.domain,
    cluster: r.cluster,
    sum: r.totals.length >= 2 ? sampleSd(r.totals) : 0,
    n: r.totals.length >= 2 ? 1 : 0,
  }));
  return assemble('repeat', records, [['judge_noise', items, NOISE]], bootstrap);
}

/**
 * Sample standard deviation (divisor K-1). It estimates the spread of the
 * judge's sampling from only K draws per row; the population form (divisor
 * K) shrinks it by sqrt((K-1)/K), 29% for K = 2, so figures taken with
 * different K would not compare. A row needs two valid repeats to say
 * anything about spread.
 */
export function sampleSd(values: readonly number[]): number {
  // Repeats that agree have no spread: not the 1e-15 their rounded mean would leave.
  if (values.every((v) => v === values[0])) return 0;
  const k = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / k;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (k - 1));
}

function assemble(
  mode: ModeScore['mode'],
  records: readonly { domain: string }[],
  figures: Array<[ModeFigure, ClusterPart[], FigureSpec]>,
  bootstrap: BootstrapSettings | undefined,
): ModeScore {
  const domainNames = canonicalDomains(records.map((r) => r.domain));
  const domains: ModeDomainScore[] = domainNames.map((domain) => ({ domain, rows: 0, counted: 0, figures: {} }));
  const at = new Map(domains.map((d) => [d.domain, d]));
  for (const r of records) at.get(r.domain)!.rows++;
  // A row is counted exactly when its item of the first figure has n > 0 (the same holds for the other figures).
  for (const it of figures[0]![1]) if (it.n > 0) at.get(it.group)!.counted++;

  const overall: ModeScore['overall'] = {};
  for (const [name, items, spec] of figures) {
    const computed = figure(items, exactFor(items, spec), bootstrap);
    for (const d of domains) d.figures[name] = computed.domains.get(d.domain)!;
    overall[name] = computed.overall;
  }
  return { mode, domains, rows: records.length, counted: domains.reduce((n, d) => n + d.counted, 0), overall };
}

function valueOf(sum: number, n: number, spec: FigureSpec): Ratio | number | undefined {
  if (n === 0) return undefined;
  return spec.exact ? Ratio.of(spec.scale * sum, n) : (spec.scale * sum) / n;
}

/** Exact only when every sum is an integer: a panel's rows hold means such as 1/3, doubles. */
function exactFor(items: readonly ClusterPart[], spec: FigureSpec): FigureSpec {
  return spec.exact && !items.every((it) => Number.isInteger(it.sum)) ? { ...spec, exact: false } : spec;
}

function figure(
  items: readonly ClusterPart[],
  spec: FigureSpec,
  bootstrap: BootstrapSettings | undefined,
): { domains: Map<string, Figure>; overall: Figure } {
  const ordered = groupClusters(items);
  const rowsOf = (d: string) => items.filter((it) => it.group === d && it.n > 0).length;

  const domains = new Map<string, Figure>();
  for (const [d, cs] of ordered) {
    const sum = cs.reduce((s, c) => s + c.sum, 0);
    const n = cs.reduce((s, c) => s + c.n, 0);
    domains.set(d, { value: valueOf(sum, n, spec), rows: rowsOf(d) });
  }
  const scored = [...domains.values()].flatMap((f) => (f.value === undefined ? [] : [f.value]));
  const overall: Figure = { value: meanValue(scored), rows: [...domains.values()].reduce((s, f) => s + f.rows, 0) };

  if (bootstrap) {
    const stat = (sum: number, n: number) => (n > 0 ? (spec.scale * sum) / n : NaN);
    const intervals = stratifiedIntervals(ordered, bootstrap, stat);
    for (const [d, interval] of intervals.groups) withInterval(domains.get(d)!, interval);
    withInterval(overall, intervals.mean);
  }
  return { domains, overall };
}

function withInterval(f: Figure, interval: Interval | undefined): void {
  if (interval) f.interval = interval;
}

function meanValue(values: ReadonlyArray<Ratio | number>): Ratio | number | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => v instanceof Ratio)) return meanOf(values as Ratio[]);
  return values.reduce<number>((s, v) => s + (v instanceof Ratio ? v.toNumber() : v), 0) / values.length;
}

/**
 * Reads and scores a judged file of a judge mode; undefined for a rubric file
 * (readJudged and aggregate score those). `visit` sees each record with its line.
 */
export async function scoreModeFile(
  path: string,
  bootstrap?: BootstrapSettings,
  visit?: ModeVisitor,
): Promise<{ score: ModeScore; warnings: ScoreWarning[] } | undefined> {
  const file = await readModeFile(path, visit);
  if (file.mode === 'rubric') return undefined;
  const score = file.mode === 'repeat' ? scoreRepeatRows(file.records, bootstrap) : scoreChoiceRows(file.mode, file.records, bootstrap);
  return { score, warnings: file.warnings };
}
