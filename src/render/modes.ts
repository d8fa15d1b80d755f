import { domainLabel } from '../core/domains.js';
import { formatFixed, type Figure, type ModeFigure, type ModeScore } from '../core/score/index.js';
import { visible } from '../core/shown.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { NoteWords } from './words.js';
import { csvText } from './written.js';

/** The figures of a judge-mode file (issue 14), with the file it came from. */
export interface ModeReport {
  path: string;
  score: ModeScore;
  /** score --by-judge: the panel member these figures are of (from the file's rows' `panel`). */
  judge?: string;
}

/** The file, and the member when the figures are one member's. */
const named = (r: ModeReport) => (r.judge === undefined ? r.path : `${r.path} (judge ${r.judge})`);

/** The judge modes' figures as named in tables and charts. */
export const FIGURES: Record<ModeFigure, string> = {
  fooling_rate: 'Fooling rate',
  win_rate: 'Win rate',
  position_consistency: 'Position consistency',
  judge_noise: 'Judge noise',
};

/** The CSV's domain of the Overall rows: a value of the data. */
const OVERALL = 'Overall';

function figureNames(s: ModeScore): ModeFigure[] {
  return (Object.keys(FIGURES) as ModeFigure[]).filter((f) => s.overall[f] !== undefined);
}

function number(f: Figure | undefined): number | null {
  const v = f?.value;
  return v === undefined ? null : typeof v === 'number' ? v : v.toNumber();
}

function cell(f: Figure | undefined): Cell {
  const extra = f?.interval ? `[${formatFixed(f.interval.lo)}, ${formatFixed(f.interval.hi)}]` : undefined;
  return { text: formatFixed(f?.value), ...(extra ? { extra } : {}) };
}

/** One grid per file: a row per domain and Overall, a column per figure (value and 95% interval). */
export function modesView(reports: readonly ModeReport[], words: NoteWords): View {
  const grids: Grid[] = reports.map((report) => {
    const { score } = report;
    const names = figureNames(score);
    const line = (label: string, counted: number, rows: number, figures: Partial<Record<ModeFigure, Figure>>) => ({
      cells: [{ text: label }, { text: `${counted}/${rows}` }, ...names.map((n) => cell(figures[n]))],
    });
    return {
      title: `${named(report)} (${score.mode})`,
      columns: [left('Domain'), right('Rows counted'), ...names.map((n) => right(FIGURES[n]))],
      rows: [
        ...score.domains.map((d) => line(domainLabel(d.domain), d.counted, d.rows, d.figures)),
        line(words.labels.overall, score.counted, score.rows, score.overall),
      ],
    };
  });
  return {
    intro: [],
    grids,
    footnotes: [...words.modes.footnotes],
    verdict: [],
  };
}

function figureJson(f: Figure | undefined) {
  return { value: number(f), rows: f?.rows ?? 0, ...(f?.interval ? { ci95: [f.interval.lo, f.interval.hi] } : {}) };
}

/** What `--format json` carries under `modes`: keys named after the figures (fooling_rate, win_rate, …). */
export function modesJson(reports: readonly ModeReport[]) {
  return reports.map(({ path, score, judge }) => {
    const names = figureNames(score);
    const figures = (fs: Partial<Record<ModeFigure, Figure>>) => Object.fromEntries(names.map((n) => [n, figureJson(fs[n])]));
    return {
      file: visible(path),
      ...(judge === undefined ? {} : { judge: visible(judge) }),
      mode: score.mode,
      rows: score.rows,
      counted: score.counted,
      domains: Object.fromEntries(score.domains.map((d) => [d.domain, { rows: d.rows, counted: d.counted, ...figures(d.figures) }])),
      overall: figures(score.overall),
    };
  });
}

/** One line per file, domain and figure; with panel members' figures (--by-judge), a last column names the member. */
export function modesCsv(reports: readonly ModeReport[]): string {
  const byJudge = reports.some((r) => r.judge !== undefined);
  const rows: Array<Array<string | number | null>> = [
    ['file', 'mode', 'domain', 'figure', 'value', 'ci_low', 'ci_high', 'rows', ...(byJudge ? ['judge'] : [])],
  ];
  for (const { path, score, judge } of reports) {
    const at = [...score.domains.map((d) => [d.domain, d.figures] as const), [OVERALL, score.overall] as const];
    for (const [domain, figures] of at)
      for (const n of figureNames(score)) {
        const f = figures[n];
        const member = byJudge ? [judge ?? null] : [];
        rows.push([path, score.mode, domain, n, number(f), f?.interval?.lo ?? null, f?.interval?.hi ?? null, f?.rows ?? 0, ...member]);
      }
  }
  return csvText(rows);
}
