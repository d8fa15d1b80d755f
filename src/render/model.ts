import type { Interval } from '../core/score/index.js';
import { domainLabel } from '../core/domains.js';
import { type Ratio, formatFixed, rawMean, statScore } from '../core/score/index.js';
import { PUBLISHED_JUDGE } from '../core/dataset/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import {
  ALL_DOMAINS,
  TURN_BUCKETS,
  cacheHitRatio,
  costOf,
  hasUsage,
  type MeanStat,
  type RunReport,
  type ScoreReport,
  type StagePrices,
  type Standing,
  type UsageTotals,
} from '../core/score/index.js';
import type { TurnScore } from '../core/score/index.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { LabelWords, MethodWords, NoteWords, StandingWords } from './words.js';

/*
 * What every output format shows, computed once: the leaderboard with its
 * best-in-column marks, and a format-neutral "view" (titled grids plus
 * footnotes) that the terminal and markdown renderers lay out. CSV and JSON
 * read the leaderboard model directly.
 */

export const MACRO = 'overall_macro';
export const MICRO = 'overall_micro';

function columnTitle(column: string, words: LabelWords): string {
  return column === MACRO ? words.overallMacro : column === MICRO ? words.overallMicro : domainLabel(column);
}

export interface ScoreCell {
  /** Exact for runs; the printed two-decimal value for published rows. */
  score: Ratio | number | undefined;
  text: string;
  /** Mean grade 1-5 (runs only). */
  mean?: Ratio;
  ci?: Interval;
  valid?: number;
  rows?: number;
  /** The rows an incomplete run set out to do here, when more than it has. */
  expected?: number;
  best: boolean;
}

export interface LeaderRow {
  label: string;
  published: boolean;
  judge?: string;
  run?: RunReport;
  /** For a run the leaderboard does not rank: why, in place ("not ranked: 40 of 198 judged, other judge"). */
  unranked?: string;
  cells: Record<string, ScoreCell>;
}

export interface Leaderboard {
  /** Domains in leaderboard order, then MACRO and MICRO. */
  columns: string[];
  rows: LeaderRow[];
}

/** The runs in leaderboard order: each run, then its panel members' runs (--by-judge). */
export function withMembers(runs: readonly RunReport[]): RunReport[] {
  return runs.flatMap((run) => [run, ...(run.members ?? [])]);
}

/** The rows an incomplete run set out to do, when more than it has: shown beside valid/total, so missing rows never read as failures. */
function shortOf(run: RunReport, rows: number, expected: number | undefined): { expected?: number } {
  const incomplete = run.standing.unranked.some((u) => u.kind === 'incomplete');
  return incomplete && expected !== undefined && expected > rows ? { expected } : {};
}

/** Ranked runs first, in the order given; a run that is not ranked never stands above one that is. */
function rankedFirst(runs: readonly RunReport[]): RunReport[] {
  return [...runs.filter((r) => r.standing.ranked), ...runs.filter((r) => !r.standing.ranked)];
}

/** Why a run is not ranked, in the words its row carries; undefined for a ranked run. */
export function unrankedText(standing: Standing, words: StandingWords): string | undefined {
  return standing.ranked ? undefined : words.notRanked(standingParts(standing, words));
}

/** Each reason a run is not ranked, in a few words ("40 of 198 judged", "other judge"). */
export function standingParts(standing: Standing, words: StandingWords): string[] {
  return standing.unranked.map(words.reason);
}

export function leaderboard(report: ScoreReport, words: StandingWords): Leaderboard {
  const columns = [...report.domains, MACRO, MICRO];
  const rows: LeaderRow[] = withMembers(rankedFirst(report.runs)).map((run) => {
    const cells: Record<string, ScoreCell> = {};
    for (const d of run.score.domains) {
      cells[d.domain] = {
        score: d.score,
        text: formatFixed(d.score),
        mean: rawMean(d.total.sum, d.total.count),
        ci: run.intervals?.domains.get(d.domain),
        valid: d.valid,
        rows: d.rows,
        ...shortOf(run, d.rows, run.provenance.expectedByDomain?.[d.domain]),
        best: false,
      };
    }
    const counts = { valid: run.score.valid, rows: run.score.rows, ...shortOf(run, run.score.rows, run.provenance.expectedRows) };
    cells[MACRO] = { score: run.score.macro, text: formatFixed(run.score.macro), ci: run.intervals?.macro, ...counts, best: false };
    const micro = statScore(run.score.micro);
    cells[MICRO] = {
      score: micro,
      text: formatFixed(micro),
      mean: rawMean(run.score.micro.sum, run.score.micro.count),
      ci: run.intervals?.micro,
      ...counts,
      best: false,
    };
    const unranked = run.memberOf ? undefined : unrankedText(run.standing, words);
    return { label: run.label, published: false, judge: run.provenance.judge, run, ...(unranked && { unranked }), cells };
  });
  for (const p of report.published) {
    const cells: Record<string, ScoreCell> = {};
    for (const [d, v] of Object.entries(p.scores)) cells[d] = { score: v, text: formatFixed(v), best: false };
    cells[MACRO] = { score: p.overall, text: formatFixed(p.overall), best: false };
    rows.push({ label: `${p.model} (published)`, published: true, judge: PUBLISHED_JUDGE, cells });
  }
  markBest(report, columns, rows);
  return { columns, rows };
}

/**
 * Marks the highest score of each column among rows that can be compared:
 * runs with runs (Overall only when they have scores in the same domains), and the
 * published rows with the runs that meet every condition of theirs. A row
 * is marked when it tops every pool it is in and one of them has two rows
 * or more. Compared as printed (hundredths), so cells that read the same
 * are both marked.
 */
function markBest(report: ScoreReport, columns: string[], rows: LeaderRow[]): void {
  // What an Overall averages: the domains with a score (one whose rows all failed is left out of it).
  const scoredDomains = (run: ScoreReport['runs'][number]) => run.score.domains.filter((d) => d.score !== undefined);
  const coverage = new Set(
    report.runs.map((r) =>
      scoredDomains(r)
        .map((d) => d.domain)
        .join(','),
    ),
  );
  const wholeOverall = (run: ScoreReport['runs'][number]) => run.score.macroDomains === run.score.domains.length;
  for (const c of columns) {
    const overall = c === MACRO || c === MICRO;
    const pools: LeaderRow[][] = [];
    // A panel member's row is its panel's judgement taken apart, not a run of its own: never ranked.
    const ranked = rows.filter((r) => !r.run?.memberOf);
    if (!overall || coverage.size === 1) pools.push(ranked.filter((r) => r.run?.standing.ranked));
    // Against the published rows, their conditions decide (a run may be "other judge" among the runs and the published judge's);
    // an incomplete run or one of mixed settings is ranked against nothing.
    const whole = (run: RunReport) => run.standing.unranked.every((u) => u.kind === 'other');
    if (report.published.length)
      pools.push(
        ranked.filter(
          (r) => r.published || (r.run && whole(r.run) && r.run.publishedGaps.length === 0 && (!overall || wholeOverall(r.run))),
        ),
      );
    const scoredIn = (pool: LeaderRow[]) =>
      pool.flatMap((r) => {
        const cell = r.cells[c];
        return cell && cell.text !== 'n/a' ? [{ row: r, cell, hundredths: Math.round(Number(cell.text) * 100) }] : [];
      });
    const state = new Map<LeaderRow, { lost: boolean; wonRanked: boolean }>();
    for (const pool of pools) {
      const scored = scoredIn(pool);
      const top = Math.max(...scored.map((s) => s.hundredths));
      for (const s of scored) {
        const st = state.get(s.row) ?? { lost: false, wonRanked: false };
        if (s.hundredths !== top) st.lost = true;
        else if (scored.length >= 2) st.wonRanked = true;
        state.set(s.row, st);
      }
    }
    for (const [row, st] of state) if (!st.lost && st.wonRanked) row.cells[c]!.best = true;
  }
}

/**
 * The interval as "±half-width": percentile intervals are near-symmetric here, and tables stay narrow; JSON and CSV carry both bounds.
 * `bootstrapped`: intervals were asked for, so a score without one (a single trajectory) reads "±n/a", never as exact.
 */
function ciText(ci: Interval | undefined, bootstrapped: boolean, words: LabelWords): string | undefined {
  return ci ? `±${formatFixed((ci.hi - ci.lo) / 2)}` : bootstrapped ? words.noHalfWidth : undefined;
}

/** valid/total, and for an incomplete run the rows it set out to do ("36/40 of 198"): missing rows are not failures. */
const count = (valid: number | undefined, rows: number | undefined, expected?: number): string | undefined =>
  valid === undefined || rows === undefined ? undefined : `${valid}/${rows}${expected !== undefined ? ` of ${expected}` : ''}`;

export function scoreView(report: ScoreReport, words: NoteWords): View {
  const board = leaderboard(report, words.standing);
  const labels = words.labels;
  const grids: Grid[] = [
    {
      title: 'Leaderboard (0-100; valid/total rows under each score)',
      columns: [left('Run'), ...board.columns.map((c) => right(columnTitle(c, labels)))],
      rows: board.rows.map((r) => ({
        muted: r.published,
        cells: [
          { text: r.label, ...(r.unranked && { sub: r.unranked }) },
          ...board.columns.map((c): Cell => {
            const cell = r.cells[c];
            if (!cell) return { text: '' };
            return {
              text: cell.text,
              extra: ciText(cell.ci, r.run?.intervals !== undefined && cell.score !== undefined, labels),
              sub: count(cell.valid, cell.rows, cell.expected),
              best: cell.best,
            };
          }),
        ],
      })),
    },
  ];
  for (const run of withMembers(report.runs)) grids.push(detailGrid(run, labels));
  if (report.byTurn) grids.push(turnGrid(withMembers(report.runs), labels));
  const usage = usageGrid(report, words.method);
  if (usage) grids.push(usage);
  const marksBest = board.rows.some((r) => Object.values(r.cells).some((c) => c.best)) ? words.best : undefined;
  return {
    intro: [],
    grids,
    footnotes: [...methodNotes(report, words.method), ...report.notes.map((n) => words.note(words.notice(n)))],
    verdict: [],
    ...(marksBest && { marksBest }),
  };
}

function statCell(stat: MeanStat): Cell {
  return { text: formatFixed(statScore(stat)) };
}

function detailGrid(run: RunReport, labels: LabelWords): Grid {
  const s = run.score;
  const overall = (title: string, score: Ratio | undefined, ci: Interval | undefined, mean: Ratio | undefined): Cell[] => [
    { text: title },
    { text: count(s.valid, s.rows, shortOf(run, s.rows, run.provenance.expectedRows).expected)! },
    { text: String(s.failed) },
    ...DIMENSIONS.map(() => ({ text: '' })),
    { text: formatFixed(score), extra: ciText(ci, run.intervals !== undefined && score !== undefined, labels) },
    { text: mean ? formatFixed(mean) : '' },
  ];
  return {
    title: `Per domain: ${run.label} (${run.file})`,
    columns: [
      left('Domain'),
      right('Valid/Total'),
      right('Failed'),
      ...DIMENSIONS.map((d) => right(d.charAt(0).toUpperCase() + d.slice(1))),
      right('Total'),
      right('Mean 1-5'),
    ],
    rows: [
      ...s.domains.map((d) => ({
        cells: [
          { text: domainLabel(d.domain) },
          { text: count(d.valid, d.rows, shortOf(run, d.rows, run.provenance.expectedByDomain?.[d.domain]).expected)! },
          { text: String(d.failed) },
          ...d.dims.map(statCell),
          {
            text: formatFixed(d.score),
            extra: ciText(run.intervals?.domains.get(d.domain), run.intervals !== undefined && d.score !== undefined, labels),
          },
          { text: formatFixed(rawMean(d.total.sum, d.total.count)) },
        ],
      })),
      { cells: overall(labels.overallMacro, s.macro, run.intervals?.macro, undefined) },
      {
        cells: overall(labels.overallMicro, statScore(s.micro), run.intervals?.micro, rawMean(s.micro.sum, s.micro.count)),
      },
    ],
  };
}

/**
 * One table for every run: a row per run and domain, then each run's
 * all-domains row (rows pooled), a column per turn bucket, with intervals.
 */
function turnGrid(runs: readonly RunReport[], labels: LabelWords): Grid {
  const present = TURN_BUCKETS.filter((b) => runs.some((run) => run.score.turns.some((t) => t.bucket === b.label)));
  const named = runs.length > 1;
  const cellsFor = (run: RunReport, scope: string, turns: readonly TurnScore[]): Cell[] =>
    present.map((b): Cell => {
      const t = turns.find((x) => x.bucket === b.label);
      if (!t) return { text: '' };
      const bootstrapped = run.intervals !== undefined && statScore(t.total) !== undefined;
      return {
        ...statCell(t.total),
        extra: ciText(run.intervals?.turns.get(scope)?.get(b.label), bootstrapped, labels),
        sub: `${t.valid}/${t.rows}`,
      };
    });
  const rows: Grid['rows'] = [];
  for (const run of runs) {
    for (const d of run.score.domains) {
      rows.push({ cells: [...(named ? [{ text: run.label }] : []), { text: domainLabel(d.domain) }, ...cellsFor(run, d.domain, d.turns)] });
    }
    rows.push({
      cells: [...(named ? [{ text: run.label }] : []), { text: labels.allDomains }, ...cellsFor(run, ALL_DOMAINS, run.score.turns)],
    });
  }
  return {
    title: 'By turn (total score per turn_idx bucket; valid/total rows; All domains pools the rows)',
    columns: [
      ...(named ? [left('Run')] : []),
      left('Domain'),
      ...present.map((b) => ({ title: `Turn ${b.label}`, align: 'right' as const })),
    ],
    rows,
  };
}

const tokens = (n: number): string => n.toLocaleString('en-US');

function stagePrices(p: StagePrices): string {
  return `$${p.input}/$${p.output}${p.cachedInput !== undefined ? ` (cached input $${p.cachedInput})` : ''}`;
}

/** Cached over prompt tokens, as a percentage; '-' without prompt tokens. */
function hitRatio(t: UsageTotals): string {
  const r = cacheHitRatio(t);
  return r === undefined ? '-' : `${(r * 100).toFixed(1)}%`;
}

function usageGrid(report: ScoreReport, words: MethodWords): Grid | undefined {
  const runs = withMembers(report.runs).filter((r) => hasUsage(r.usage));
  if (!runs.length) return undefined;
  const prices = report.prices;
  const rows: Grid['rows'] = [];
  const line = (label: string, scope: string, stage: 'infer' | 'judge', t: UsageTotals): void => {
    if (t.rows === 0) return;
    rows.push({
      cells: [
        { text: label },
        { text: scope },
        { text: stage },
        { text: String(t.rows) },
        { text: tokens(t.prompt) },
        { text: tokens(t.completion) },
        { text: tokens(t.reasoning) },
        { text: t.cachedRows ? tokens(t.cached) : '-' },
        { text: hitRatio(t) },
        ...(prices ? [{ text: `$${formatFixed(costOf(t, prices[stage]))}` }] : []),
      ],
    });
  };
  for (const run of runs) {
    line(run.label, 'all', 'infer', run.usage.infer);
    line(run.label, 'all', 'judge', run.usage.judge);
    // Per-domain lines only for a single run: with several, the table would drown the totals.
    if (withMembers(report.runs).length === 1) {
      for (const [d, u] of run.usage.domains) {
        line(run.label, domainLabel(d), 'infer', u.infer);
        line(run.label, domainLabel(d), 'judge', u.judge);
      }
    }
  }
  return {
    title: words.usageTitle(prices && { infer: stagePrices(prices.infer), judge: stagePrices(prices.judge) }),
    columns: [
      left('Run'),
      left('Domain'),
      left('Stage'),
      right('Rows'),
      right('Prompt'),
      right('Completion'),
      right('Reasoning'),
      right('Cached'),
      right('Hit'),
      ...(prices ? [right('Cost (USD)')] : []),
    ],
    rows,
  };
}

/** The footnotes that say how the leaderboard was made, as far as they apply to this report. */
export function methodNotes(report: ScoreReport, words: MethodWords): string[] {
  const notes = [words.scores];
  if (report.failuresAsLowest) notes.push(words.failuresAsLowest);
  if (report.bootstrap) {
    notes.push(words.bootstrap(report.bootstrap.resamples, report.bootstrap.seed));
    if (report.byTurn) notes.push(words.byTurnIntervals);
    notes.push(words.oneTrajectory);
  }
  if (report.runs.length > 1 || report.published.length) notes.push(words.best);
  if (report.runs.some((r) => !r.standing.ranked)) notes.push(words.notRanked);
  if (report.byJudge) notes.push(...byJudgeNotes(report, words));
  if (report.published.length) notes.push(words.published);
  return notes;
}

/** What --by-judge shows: each member's own grades, or that a run has one judge only. */
export function byJudgeNotes(report: ScoreReport, words: MethodWords): string[] {
  const single = report.runs.filter((r) => r.members?.length === 0);
  return [
    ...(report.runs.some((r) => r.members?.length) ? [words.panelMember] : []),
    ...single.map((r) => words.singleJudge(r.label, r.provenance.judge)),
  ];
}
