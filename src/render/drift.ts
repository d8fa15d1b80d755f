import { domainLabel } from '../core/domains.js';
import { OVERALL, type DriftCurve, type DriftReport } from '../core/drift/index.js';
import { formatFixed, formatSigned, type Interval, type Ratio } from '../core/score/index.js';
import { left, right, notesData, type Cell, type View } from './view.js';
import type { LabelWords, NoteWords } from './words.js';
import { csvText, jsonText } from './written.js';

/** `awb drift`: the score against the free-running horizon, in every format; the HTML report draws the same curves. */

export const scopeName = (scope: string, words: LabelWords) => (scope === OVERALL ? words.overallMacro : domainLabel(scope));
const ciText = (ci: Interval | undefined, signed = false) => {
  const f = signed ? formatSigned : formatFixed;
  return ci ? `[${f(ci.lo)}, ${f(ci.hi)}]` : undefined;
};

function cell(value: Ratio | undefined, ci: Interval | undefined, signed = false, tone?: Cell['tone']): Cell {
  const extra = ciText(ci, signed);
  return { text: signed ? formatSigned(value) : formatFixed(value), ...(extra ? { extra } : {}), ...(tone ? { tone } : {}) };
}

/** Where the drop first shows, in words: per curve. */
export function firstText(c: DriftCurve, withCi: boolean, words: LabelWords): string {
  if (!withCi) return words.noDropCalled;
  return c.firstSignificant === undefined ? words.noDrop : words.horizon(c.firstSignificant);
}

export function driftView(report: DriftReport, words: NoteWords): View {
  const { runs, curves } = report;
  const withCi = report.bootstrap !== undefined;
  const labels = words.labels;
  const horizonName = labels.horizon;
  const scores = {
    title: 'Score (0-100) by horizon',
    columns: [left('Domain'), right('Rows'), ...runs.map((r) => right(horizonName(r.horizon)))],
    rows: curves.map((c) => ({
      cells: [
        { text: scopeName(c.scope, labels) },
        { text: String(c.rows), sub: `${c.trajectories} traj.` },
        ...c.points.map((p) => cell(p.score, p.scoreCi)),
      ],
    })),
  };
  const drops = {
    title: 'Drift: drop from teacher-forced, S(0) - S(H), points',
    columns: [left('Domain'), ...runs.slice(1).map((r) => right(horizonName(r.horizon))), left('First significant drop')],
    rows: curves.map((c) => ({
      cells: [
        { text: scopeName(c.scope, labels) },
        ...c.points.slice(1).map((p) => cell(p.drop, p.dropCi, true, p.significant ? 'bad' : undefined)),
        { text: firstText(c, withCi, labels) },
      ],
    })),
  };
  return {
    intro: [
      words.drift.title([...new Set(runs.map((r) => r.label))]),
      ...runs.map((r) => words.drift.run(horizonName(r.horizon), r.label, r.file)),
      ...report.notes.map(words.notice),
    ],
    grids: [scores, drops],
    footnotes: [
      words.drift.horizon,
      withCi ? words.drift.intervals(report.bootstrap!.resamples, report.bootstrap!.seed) : words.drift.noIntervals,
      words.drift.rows,
    ],
    verdict: [],
  };
}

const ci = (i: Interval | undefined) => (i ? [i.lo, i.hi] : null);
const num = (r: Ratio | undefined) => (r === undefined ? null : r.toNumber());

/** One JSON document: the runs, then a curve per domain and Overall. */
export function renderDriftJson(report: DriftReport, words: NoteWords): string {
  return jsonText({
    runs: report.runs.map((r) => ({ file: r.file, label: r.label, horizon: r.horizon, rows: r.rows, model: r.provenance.model ?? null })),
    bootstrap: report.bootstrap ?? null,
    rows_left_out: report.leftOut,
    curves: report.curves.map((c) => ({
      scope: c.scope,
      rows: c.rows,
      trajectories: c.trajectories,
      first_significant_horizon: c.firstSignificant ?? null,
      points: c.points.map((p) => ({
        horizon: p.horizon,
        score: num(p.score),
        score_ci95: ci(p.scoreCi),
        drop: num(p.drop),
        drop_ci95: ci(p.dropCi),
        significant: p.significant,
      })),
    })),
    notes: report.notes.map(words.notice),
    notes_data: notesData(report.notes, words),
  });
}

/** One line per domain (and Overall) and horizon. */
export function renderDriftCsv(report: DriftReport): string {
  const rows: Array<Array<string | number | boolean | null>> = [
    [
      'domain',
      'horizon',
      'rows',
      'trajectories',
      'score',
      'score_ci_low',
      'score_ci_high',
      'drop',
      'drop_ci_low',
      'drop_ci_high',
      'significant',
      'first_significant_horizon',
    ],
  ];
  for (const c of report.curves) {
    for (const p of c.points) {
      rows.push([
        c.scope === OVERALL ? 'Overall (macro)' : c.scope,
        String(p.horizon),
        c.rows,
        c.trajectories,
        num(p.score),
        p.scoreCi?.lo ?? null,
        p.scoreCi?.hi ?? null,
        num(p.drop),
        p.dropCi?.lo ?? null,
        p.dropCi?.hi ?? null,
        p.significant,
        c.firstSignificant === undefined ? null : String(c.firstSignificant),
      ]);
    }
  }
  return csvText(rows);
}
