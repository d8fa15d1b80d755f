import type { Interval } from '../core/score/index.js';
import type { CompareReport, Delta, GateResult } from '../core/compare/index.js';
import { domainLabel } from '../core/domains.js';
import { visible } from '../core/shown.js';
import { formatFixed, formatSigned } from '../core/score/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { GateRemedy, LabelWords, NoteWords } from './words.js';
import { standingParts } from './model.js';

/* What `awb compare` shows: the paired deltas, the rows that changed most, and the gate's verdict. */

/** A delta's interval as compare and the page show it. */
export function intervalText(ci: Interval | undefined, words: LabelWords): string {
  return ci ? `[${formatSigned(ci.lo)}, ${formatSigned(ci.hi)}]` : words.na;
}

const verdict = (d: Delta, words: LabelWords): Cell => {
  if (!d.ci) return { text: words.na };
  if (d.ci.hi < 0) return { text: words.verdict.worse, tone: 'bad' };
  if (d.ci.lo > 0) return { text: words.verdict.better, tone: 'good' };
  return { text: words.verdict.unclear };
};

const capital = (d: string): string => d.charAt(0).toUpperCase() + d.slice(1);

/** What the compare renderers show: the report, and how the user started awb for the commands it names. */
export interface ComparePage extends CompareReport {
  /** `awb`, `npx agentworldbench`, `node bin/awb.js`. */
  invocation: string;
  /** The words of the notes (src/commands/words/). */
  words: NoteWords;
  /** The command that shows the rows that changed most (`awb rows CANDIDATE KEY…`), ready to paste; absent without such rows. */
  rowsCommand?: string;
}

export function compareView(report: ComparePage): View {
  const { result, baseline, candidate } = report;
  const labels = report.words.labels;
  const deltaCells = (d: Delta): Cell[] => {
    const v = verdict(d, labels);
    return [
      { text: formatFixed(d.baseline) },
      { text: formatFixed(d.candidate) },
      { text: formatSigned(d.delta), tone: v.tone },
      { text: intervalText(d.ci, labels) },
      v,
    ];
  };
  const named = [...result.domains.map((d) => ({ name: domainLabel(d.domain), d })), { name: labels.overallMacro, d: result.overall }];
  const grids: Grid[] = [
    {
      title: 'Candidate - baseline, on rows valid in both (0-100 points)',
      columns: [
        left('Domain'),
        right('Paired'),
        right('Used'),
        right('Trajectories'),
        right('Failed (base/cand)'),
        right('Baseline'),
        right('Candidate'),
        right('Delta'),
        right('95% interval'),
        left('Verdict'),
      ],
      rows: named.map(({ name, d }) => ({
        cells: [
          { text: name },
          { text: String(d.paired) },
          { text: String(d.used) },
          { text: String(d.trajectories) },
          { text: `${d.baselineFailed}/${d.candidateFailed}` },
          ...deltaCells(d),
        ],
      })),
    },
    {
      title: 'Per dimension: candidate - baseline (0-100 points, same rows)',
      columns: [left('Domain'), ...DIMENSIONS.map((d) => right(capital(d)))],
      rows: named.map(({ name, d }) => ({ cells: [{ text: name }, ...d.dims.map((v) => ({ text: formatSigned(v) }))] })),
    },
  ];
  if (result.changed.length) {
    grids.push({
      title: report.words.compare.changedTitle(result.changed.length),
      columns: [left('Row (domain/id/turn)'), right('Baseline'), right('Candidate'), right('Delta')],
      rows: result.changed.map((r) => ({
        cells: [
          { text: visible(r.key) },
          { text: formatFixed(r.baseline) },
          { text: formatFixed(r.candidate) },
          { text: formatSigned(r.delta), tone: r.delta.num < 0n ? 'bad' : r.delta.num > 0n ? 'good' : undefined },
        ],
      })),
    });
  }
  const words = report.words;
  const footnotes = [
    words.compare.intervals,
    words.compare.verdict,
    ...report.notes.map((n) => words.note(words.notice(n))),
    ...(report.rowsCommand ? [words.compare.rowsCommand(report.rowsCommand)] : []),
  ];
  return {
    intro: [
      words.compare.baseline(baseline.label, sideText(baseline, words)),
      words.compare.candidate(candidate.label, sideText(candidate, words)),
      ...(report.domains ? [words.compare.domains(report.domains.map(domainLabel))] : []),
    ],
    grids,
    footnotes: report.gate ? [...footnotes, words.gate.method(report.gate)] : footnotes,
    verdict: report.gate ? gateVerdict(report.gate, report) : [],
  };
}

/** A run's file and rows, and in place what keeps it from a like-for-like comparison ("40 of 198 judged", "other judge"). */
function sideText(side: ComparePage['baseline'], words: NoteWords): string {
  return words.compare.about(side.file, side.rows, standingParts(side.standing, words.standing));
}

function gateVerdict(g: GateResult, page: ComparePage): string[] {
  const words = page.words.gate;
  const remedy = gateRemedy(g, page);
  return [
    words.head(g),
    ...g.reasons.map((r) => `  ${words.reason(r, page.candidate.label)}`),
    ...(remedy ? [`  ${remedy}`] : []),
    ...g.inconclusive.map((u) => `  ${words.notTested(u)}`),
  ];
}

/** How to complete a candidate whose failed rows can be asked again, when the gate failed on them. */
function remedyOf(g: GateResult): GateRemedy | undefined {
  if (g.reasons.some((r) => r.code === 'incomplete' && r.cause === 'no-generation')) return 'infer-and-judge';
  return g.reasons.some((r) => r.code === 'judge-failures') ? 'judge' : undefined;
}

/** The remedy's line, worded; undefined when the gate did not fail on rows that can be asked again. */
export function gateRemedy(g: GateResult, page: ComparePage): string | undefined {
  const remedy = remedyOf(g);
  return remedy && page.words.gate.remedy(remedy, page.candidate.label, page.invocation);
}
