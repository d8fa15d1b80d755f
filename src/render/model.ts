import type { Interval } from '../core/score/index.js';
import type { CompareReport, Delta } from '../core/score/index.js';
import { domainLabel } from '../core/domains.js';
import { visible } from '../core/shown.js';
import { Ratio, formatFixed, formatSigned, normalizedMean, rawMean } from '../core/score/index.js';
import { PUBLISHED_JUDGE, PUBLISHED_SOURCE } from '../core/dataset/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import { TURN_BUCKETS, costOf, hasUsage, type MeanStat, type RunReport, type ScoreReport, type UsageTotals } from '../core/score/index.js';

/*
 * What every output format shows, computed once: the leaderboard with its
 * best-in-column marks, and a format-neutral "view" (titled grids plus
 * footnotes) that the terminal and markdown renderers lay out. CSV and JSON
 * read the leaderboard model directly.
 */

export const MACRO = 'overall_macro';
export const MICRO = 'overall_micro';

function columnTitle(column: string): string {
  return column === MACRO ? 'Overall (macro)' : column === MICRO ? 'Overall (micro)' : domainLabel(column);
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
  best: boolean;
}

export interface LeaderRow {
  label: string;
  published: boolean;
  judge?: string;
  run?: RunReport;
  cells: Record<string, ScoreCell>;
}

export interface Leaderboard {
  /** Domains in leaderboard order, then MACRO and MICRO. */
  columns: string[];
  rows: LeaderRow[];
}

export function leaderboard(report: ScoreReport): Leaderboard {
  const columns = [...report.domains, MACRO, MICRO];
  const rows: LeaderRow[] = report.runs.map((run) => {
    const cells: Record<string, ScoreCell> = {};
    for (const d of run.score.domains) {
      cells[d.domain] = {
        score: d.score,
        text: formatFixed(d.score),
        mean: rawMean(d.total.sum, d.total.count),
        ci: run.intervals?.domains.get(d.domain),
        valid: d.valid,
        rows: d.rows,
        best: false,
      };
    }
    const counts = { valid: run.score.valid, rows: run.score.rows };
    cells[MACRO] = { score: run.score.macro, text: formatFixed(run.score.macro), ci: run.intervals?.macro, ...counts, best: false };
    const micro = normalizedMean(run.score.micro.sum, run.score.micro.count);
    cells[MICRO] = {
      score: micro,
      text: formatFixed(micro),
      mean: rawMean(run.score.micro.sum, run.score.micro.count),
      ci: run.intervals?.micro,
      ...counts,
      best: false,
    };
    return { label: run.label, published: false, judge: run.provenance.judge, run, cells };
  });
  for (const p of report.published) {
    const cells: Record<string, ScoreCell> = {};
    for (const [d, v] of Object.entries(p.scores)) cells[d] = { score: v, text: formatFixed(v), best: false };
    cells[MACRO] = { score: p.overall, text: formatFixed(p.overall), best: false };
    rows.push({ label: `${p.model} (published)`, published: true, judge: PUBLISHED_JUDGE, cells });
  }
  markBest(columns, rows);
  return { columns, rows };
}

/**
 * Marks the highest score of each column. Compared as printed (hundredths),
 * so two cells that read the same are both marked; a one-row column marks
 * nothing.
 */
function markBest(columns: string[], rows: LeaderRow[]): void {
  for (const c of columns) {
    const scored = rows.flatMap((r) => {
      const cell = r.cells[c];
      return cell && cell.text !== 'n/a' ? [{ cell, hundredths: Math.round(Number(cell.text) * 100) }] : [];
    });
    if (scored.length < 2) continue;
    const top = Math.max(...scored.map((s) => s.hundredths));
    for (const s of scored) s.cell.best = s.hundredths === top;
  }
}

/** The interval as "±half-width": percentile intervals are near-symmetric here, and tables stay narrow; JSON and CSV carry both bounds. */
function ciText(ci: Interval | undefined): string | undefined {
  return ci ? `±${formatFixed((ci.hi - ci.lo) / 2)}` : undefined;
}

function intervalText(ci: Interval | undefined): string {
  return ci ? `[${formatSigned(ci.lo)}, ${formatSigned(ci.hi)}]` : 'n/a';
}

export type Align = 'left' | 'right';

export interface Cell {
  /** The value; what is bolded when best. */
  text: string;
  /** Shown after the value, never bolded (the ± half-width). */
  extra?: string;
  /** Secondary line (terminal) or parenthesis (markdown): counts such as valid/total. */
  sub?: string;
  best?: boolean;
  tone?: 'good' | 'bad';
}

export interface Grid {
  title: string;
  columns: Array<{ title: string; align: Align }>;
  rows: Array<{ cells: Cell[]; muted?: boolean }>;
}

export interface View {
  /** Lines before the tables. */
  intro: string[];
  grids: Grid[];
  footnotes: string[];
  /** Lines that belong after everything (the gate verdict). */
  outro: string[];
  /** Some cells carry best-in-column marks; each renderer explains its own way of showing them. */
  marksBest?: boolean;
}

const count = (valid: number | undefined, rows: number | undefined): string | undefined =>
  valid === undefined || rows === undefined ? undefined : `${valid}/${rows}`;

export function scoreView(report: ScoreReport): View {
  const board = leaderboard(report);
  const grids: Grid[] = [
    {
      title: 'Leaderboard (0-100; valid/total rows under each score)',
      columns: [{ title: 'Run', align: 'left' }, ...board.columns.map((c) => ({ title: columnTitle(c), align: 'right' as const }))],
      rows: board.rows.map((r) => ({
        muted: r.published,
        cells: [
          { text: r.label },
          ...board.columns.map((c): Cell => {
            const cell = r.cells[c];
            if (!cell) return { text: '' };
            return { text: cell.text, extra: ciText(cell.ci), sub: count(cell.valid, cell.rows), best: cell.best };
          }),
        ],
      })),
    },
  ];
  if (report.runs.length === 1) grids.push(detailGrid(report.runs[0]!));
  if (report.byTurn) for (const run of report.runs) grids.push(turnGrid(run, report.runs.length > 1));
  const usage = usageGrid(report);
  if (usage) grids.push(usage);
  const marksBest = board.rows.some((r) => Object.values(r.cells).some((c) => c.best));
  return { intro: [], grids, footnotes: [...methodNotes(report), ...report.notes.map((n) => `Note: ${n}`)], outro: [], marksBest };
}

function statCell(stat: MeanStat): Cell {
  return { text: formatFixed(normalizedMean(stat.sum, stat.count)) };
}

function detailGrid(run: RunReport): Grid {
  const right = (title: string) => ({ title, align: 'right' as const });
  const s = run.score;
  const overall = (title: string, score: Ratio | undefined, ci: Interval | undefined, mean: Ratio | undefined): Cell[] => [
    { text: title },
    { text: `${s.valid}/${s.rows}` },
    { text: String(s.failed) },
    ...DIMENSIONS.map(() => ({ text: '' })),
    { text: formatFixed(score), extra: ciText(ci) },
    { text: mean ? formatFixed(mean) : '' },
  ];
  return {
    title: `Per domain: ${run.label} (${run.file})`,
    columns: [
      { title: 'Domain', align: 'left' },
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
          { text: `${d.valid}/${d.rows}` },
          { text: String(d.failed) },
          ...d.dims.map(statCell),
          { text: formatFixed(d.score), extra: ciText(run.intervals?.domains.get(d.domain)) },
          { text: formatFixed(rawMean(d.total.sum, d.total.count)) },
        ],
      })),
      { cells: overall('Overall (macro)', s.macro, run.intervals?.macro, undefined) },
      {
        cells: overall(
          'Overall (micro)',
          normalizedMean(s.micro.sum, s.micro.count),
          run.intervals?.micro,
          rawMean(s.micro.sum, s.micro.count),
        ),
      },
    ],
  };
}

function turnGrid(run: RunReport, named: boolean): Grid {
  const present = TURN_BUCKETS.filter((b) => run.score.domains.some((d) => d.turns.some((t) => t.bucket === b.label)));
  return {
    title: `By turn${named ? `: ${run.label}` : ''} (total score per turn_idx bucket; valid/total rows)`,
    columns: [{ title: 'Domain', align: 'left' }, ...present.map((b) => ({ title: `Turn ${b.label}`, align: 'right' as const }))],
    rows: run.score.domains.map((d) => ({
      cells: [
        { text: domainLabel(d.domain) },
        ...present.map((b): Cell => {
          const t = d.turns.find((x) => x.bucket === b.label);
          return t ? { ...statCell(t.total), sub: `${t.valid}/${t.rows}` } : { text: '' };
        }),
      ],
    })),
  };
}

const tokens = (n: number): string => n.toLocaleString('en-US');

function usageGrid(report: ScoreReport): Grid | undefined {
  const runs = report.runs.filter((r) => hasUsage(r.usage));
  if (!runs.length) return undefined;
  const prices = report.prices;
  const rows: Grid['rows'] = [];
  const line = (label: string, scope: string, stage: string, t: UsageTotals): void => {
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
        ...(prices ? [{ text: `$${formatFixed(costOf(t, prices))}` }] : []),
      ],
    });
  };
  for (const run of runs) {
    line(run.label, 'all', 'infer', run.usage.infer);
    line(run.label, 'all', 'judge', run.usage.judge);
    // Per-domain lines only for a single run: with several, the table would drown the totals.
    if (report.runs.length === 1) {
      for (const [d, u] of run.usage.domains) {
        line(run.label, domainLabel(d), 'infer', u.infer);
        line(run.label, domainLabel(d), 'judge', u.judge);
      }
    }
  }
  const right = (title: string) => ({ title, align: 'right' as const });
  return {
    title: prices
      ? `Usage and cost (at $${prices.input}/M input and $${prices.output}/M output tokens, applied to both stages)`
      : 'Usage (tokens; --price-input/--price-output turn them into cost)',
    columns: [
      { title: 'Run', align: 'left' },
      { title: 'Domain', align: 'left' },
      { title: 'Stage', align: 'left' },
      right('Rows'),
      right('Prompt'),
      right('Completion'),
      right('Reasoning'),
      ...(prices ? [right('Cost (USD)')] : []),
    ],
    rows,
  };
}

export function methodNotes(report: ScoreReport): string[] {
  const notes = [
    "Scores: (mean grade - 1) / 4 x 100 over rows with failed == 0, zero grades skipped, as in the official script. Overall (macro): mean of the domain scores, the published leaderboard's Overall. Overall (micro): mean over all valid rows, what the official script prints.",
  ];
  if (report.failuresAsLowest)
    notes.push('--failures-as-lowest: failed rows count as the lowest grade (1 on every dimension), a conservative figure.');
  if (report.bootstrap) {
    notes.push(
      `±: half-width of the 95% bootstrap percentile interval (${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}), resampling whole trajectories (domain + id), not rows, within each domain; macro resamples each domain independently, micro resamples trajectories across all domains.`,
    );
  }
  if (report.published.length)
    notes.push(`(published): ${PUBLISHED_SOURCE}, judged by ${PUBLISHED_JUDGE}; no intervals or micro Overall there.`);
  return notes;
}

const verdict = (d: Delta): Cell => {
  if (!d.ci) return { text: 'n/a' };
  if (d.ci.hi < 0) return { text: 'worse', tone: 'bad' };
  if (d.ci.lo > 0) return { text: 'better', tone: 'good' };
  return { text: 'no clear difference' };
};

export function compareView(report: CompareReport): View {
  const { result, baseline, candidate } = report;
  const right = (title: string) => ({ title, align: 'right' as const });
  const deltaCells = (d: Delta): Cell[] => {
    const v = verdict(d);
    return [
      { text: formatFixed(d.baseline) },
      { text: formatFixed(d.candidate) },
      { text: formatSigned(d.delta), tone: v.tone },
      { text: intervalText(d.ci) },
      v,
    ];
  };
  const grid: Grid = {
    title: 'Candidate - baseline, on rows valid in both (0-100 points)',
    columns: [
      { title: 'Domain', align: 'left' },
      right('Paired'),
      right('Used'),
      right('Failed (base/cand)'),
      right('Baseline'),
      right('Candidate'),
      right('Delta'),
      right('95% interval'),
      { title: 'Verdict', align: 'left' },
    ],
    rows: [
      ...result.domains.map((d) => ({
        cells: [
          { text: domainLabel(d.domain) },
          { text: String(d.paired) },
          { text: String(d.used) },
          { text: `${d.baselineFailed}/${d.candidateFailed}` },
          ...deltaCells(d),
        ],
      })),
      {
        cells: [
          { text: 'Overall (macro)' },
          { text: String(result.overall.paired) },
          { text: String(result.overall.used) },
          { text: `${result.overall.baselineFailed}/${result.overall.candidateFailed}` },
          ...deltaCells(result.overall),
        ],
      },
    ],
  };
  const outro: string[] = [];
  if (report.gate) {
    const g = report.gate;
    outro.push(
      g.failed
        ? `Gate FAILED (--fail-below ${formatFixed(g.threshold)}): the candidate is significantly worse by more than ${formatFixed(g.threshold)} points:`
        : `Gate passed (--fail-below ${formatFixed(g.threshold)}): no 95% interval of candidate - baseline lies entirely below -${formatFixed(g.threshold)}.`,
      ...g.reasons.map((r) => `  ${r}`),
    );
  }
  return {
    intro: [
      `Baseline:  ${baseline.label} (${baseline.file}, ${baseline.rows} rows)`,
      `Candidate: ${candidate.label} (${candidate.file}, ${candidate.rows} rows)`,
    ],
    grids: [grid],
    footnotes: [
      `Intervals: 95% paired bootstrap percentile intervals (${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}), resampling whole trajectories within each domain and applying each draw to both runs; Overall (macro) is the mean of the domain deltas, each domain resampled independently.`,
      'Verdict: "worse"/"better" when the interval excludes 0.',
      ...report.notes.map((n) => `Note: ${n}`),
    ],
    outro,
  };
}

/** The view with every text made visible: labels, tasks, judges and file names come from files. */
export function visibleView(view: View): View {
  const cell = (c: Cell): Cell => ({
    ...c,
    text: visible(c.text),
    ...(c.extra !== undefined ? { extra: visible(c.extra) } : {}),
    ...(c.sub !== undefined ? { sub: visible(c.sub) } : {}),
  });
  return {
    ...view,
    intro: view.intro.map(visible),
    grids: view.grids.map((g) => ({
      ...g,
      title: visible(g.title),
      columns: g.columns.map((c) => ({ ...c, title: visible(c.title) })),
      rows: g.rows.map((r) => ({ ...r, cells: r.cells.map(cell) })),
    })),
    footnotes: view.footnotes.map(visible),
    outro: view.outro.map(visible),
  };
}
