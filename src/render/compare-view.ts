import type { Interval } from '../core/score/index.js';
import { OVERALL, type CompareReport, type Delta, type GateResult } from '../core/compare/index.js';
import { domainLabel } from '../core/domains.js';
import { visible } from '../core/shown.js';
import { formatFixed, formatSigned } from '../core/score/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import { left, right, type Cell, type Grid, type NoteWords, type View } from './view.js';
import { gateRemedy, percentText, reasonText, untestedText } from './gate.js';
import { standingParts } from './model.js';

/* What `awb compare` shows: the paired deltas, the rows that changed most, and the gate's verdict. */

function intervalText(ci: Interval | undefined): string {
  return ci ? `[${formatSigned(ci.lo)}, ${formatSigned(ci.hi)}]` : 'n/a';
}

const verdict = (d: Delta): Cell => {
  if (!d.ci) return { text: 'n/a' };
  if (d.ci.hi < 0) return { text: 'worse', tone: 'bad' };
  if (d.ci.lo > 0) return { text: 'better', tone: 'good' };
  return { text: 'no clear difference' };
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
  const overallName = 'Overall (macro)';
  const named = [...result.domains.map((d) => ({ name: domainLabel(d.domain), d })), { name: overallName, d: result.overall }];
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
      title: `The ${result.changed.length} row(s) that changed most (total score, 0-100; the command below shows them)`,
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
  const footnotes = [
    'Intervals: 95% cluster-robust t intervals over trajectories (domain + id): the paired row differences summed per trajectory, the CR2 standard error (leverage-corrected for few, unequal trajectories) and Bell-McCaffrey degrees of freedom; Overall (macro) is the mean of the domain deltas, with Welch-Satterthwaite degrees of freedom.',
    'Verdict: "worse"/"better" when that interval excludes 0 (each line on its own, not corrected for the number of lines).',
    ...report.notes.map((n) => `Note: ${report.words.notice(n)}`),
    ...(report.rowsCommand ? [`The rows that changed most, prediction beside ground truth: ${report.rowsCommand}`] : []),
  ];
  return {
    intro: [
      `Baseline:  ${baseline.label} (${sideText(baseline)})`,
      `Candidate: ${candidate.label} (${sideText(candidate)})`,
      ...(report.domains ? [`Domains:   ${report.domains.map(domainLabel).join(', ')} only (--domains; Overall is their macro)`] : []),
    ],
    grids,
    footnotes: report.gate ? [...footnotes, gateMethod(report.gate)] : footnotes,
    verdict: report.gate ? gateVerdict(report.gate, report) : [],
  };
}

/** A run's file and rows, and in place what keeps it from a like-for-like comparison ("40 of 198 judged", "other judge"). */
function sideText(side: ComparePage['baseline']): string {
  return [`${side.file}, ${side.rows} rows`, ...standingParts(side.standing)].join('; ');
}

function gateVerdict(g: GateResult, page: ComparePage): string[] {
  const threshold = formatFixed(g.threshold);
  const head = g.failed
    ? `Gate FAILED (--fail-below ${threshold}):`
    : `Gate passed (--fail-below ${threshold}): no test finds the candidate worse by more than ${threshold} points; tested: ${testedText(g)} (family-wise error ${percentText(g.alpha)})${g.inconclusive.length ? `; NOT tested (too few trajectories), so not covered by this pass: ${g.inconclusive.map((u) => domainLabel(u.domain)).join(', ')}` : ''}.`;
  const remedy = gateRemedy(g, page);
  return [
    head,
    ...g.reasons.map((r) => `  ${reasonText(r, page)}`),
    ...(remedy ? [`  ${remedy}`] : []),
    ...g.inconclusive.map((u) => `  not tested: ${untestedText(u)}`),
  ];
}

/** What the gate tested, by name: "Overall and 3 domains (MCP, Search, OS)". */
function testedText(g: GateResult): string {
  const domains = g.tests.filter((t) => t.domain !== OVERALL).map((t) => domainLabel(t.domain));
  const overall = g.tests.some((t) => t.domain === OVERALL) ? 'Overall' : '';
  if (!domains.length) return overall || 'nothing';
  const listed = `${domains.length === 1 ? 'one domain' : `${domains.length} domains`} (${domains.join(', ')})`;
  return overall ? `${overall} and ${listed}` : listed;
}

function gateMethod(g: GateResult): string {
  const small = g.domains
    ? 'Overall, or a domain named by --domains, with too few trajectories for any outcome to be significant fails the gate, which passes nothing it could not test.'
    : 'A domain with too few trajectories for any outcome to be significant is reported as not tested, never as a failure; Overall too small to test fails the gate, which passes nothing it could not test.';
  return `Gate: for Overall and each domain, a one-sided sign-flip randomization test over trajectories of "candidate - baseline >= -${formatFixed(g.threshold)}" (exact when the runs differ by judge noise alone); Holm's step-down procedure over the ${g.tests.length === 1 ? 'one test' : `${g.tests.length} tests`} keeps the chance that judge noise alone fails the gate at or below ${percentText(g.alpha)}. ${small}`;
}
