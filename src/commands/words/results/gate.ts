import { domainLabel } from '../../../core/domains.js';
import { formatFixed, formatSigned } from '../../../core/score/index.js';
import { GATE_ALPHA, OVERALL, type GateResult, type Untested } from '../../../core/compare/index.js';
import type { Notice } from '../../../core/errors.js';
import type { CompareWords, GateWords } from '../../../render/words.js';

/*
 * What `awb compare` says around its tables, and the gate's verdict: each typed reason (core/compare/gate.ts) as the
 * line the terminal, the markdown summary and JSON's `message` carry. Renderers get them through NOTE_WORDS (index.ts).
 */

const percent = (x: number): string => `${Number((x * 100).toPrecision(3))}%`;
const lineName = (domain: string): string => (domain === OVERALL ? 'Overall' : domainLabel(domain));
const trajectories = (n: number): string => `${n} ${n === 1 ? 'trajectory' : 'trajectories'}`;
const tests = (n: number): string => (n === 1 ? 'one test' : `${n} tests`);
const PARTIAL = '(--allow-partial to gate on the rows in common)';

/** What the gate tested, by name: "Overall and 3 domains (MCP, Search, OS)". */
function tested(g: GateResult): string {
  const domains = g.tests.filter((t) => t.domain !== OVERALL).map((t) => domainLabel(t.domain));
  const overall = g.tests.some((t) => t.domain === OVERALL) ? 'Overall' : '';
  if (!domains.length) return overall || 'nothing';
  const listed = `${domains.length === 1 ? 'one domain' : `${domains.length} domains`} (${domains.join(', ')})`;
  return overall ? `${overall} and ${listed}` : listed;
}

const untested = (u: Untested): string =>
  `${lineName(u.domain)}: ${trajectories(u.trajectories)}, too few to conclude anything (even all of them moving the same way would not be significant among ${u.tests} tests)`;

/** The gate's lines; `notice`: the words of the comparability note an incomparable reason carries. */
export function gateWords(notice: (n: Notice) => string): GateWords {
  return {
    head: (g) => {
      const threshold = formatFixed(g.threshold);
      if (g.failed) return `Gate FAILED (--fail-below ${threshold}):`;
      const skipped = g.inconclusive.length
        ? `; NOT tested (too few trajectories), so not covered by this pass: ${g.inconclusive.map((u) => domainLabel(u.domain)).join(', ')}`
        : '';
      return `Gate passed (--fail-below ${threshold}): no test finds the candidate worse by more than ${threshold} points; tested: ${tested(g)} (family-wise error ${percent(g.alpha)})${skipped}.`;
    },
    reason: (r, candidate) => {
      switch (r.code) {
        case 'regression':
          return `${lineName(r.domain)}: ${formatSigned(r.delta)} points, worse by more than ${formatFixed(r.threshold)} (one-sided p = ${r.p.toPrecision(2)}, at most ${Number((r.level * 100).toPrecision(2))}% by Holm over ${tests(r.tests)})`;
        case 'untestable':
          if (r.trajectories === 0) {
            return `${lineName(r.domain)} could not be tested: no trajectory has rows valid in both runs, so the gate passes nothing here`;
          }
          return `${lineName(r.domain)} could not be tested: ${trajectories(r.trajectories)} cannot show a drop of any size at the gate's level (${percent(GATE_ALPHA / r.tests)} for the first of ${r.tests} tests); that takes at least ${r.needed} trajectories, so the gate passes nothing here: compare runs over more trajectories`;
        case 'incomparable':
          return `${notice(r.note)} (--allow-incomparable to gate anyway)`;
        case 'judge-failures': {
          const why = r.cause === 'request-failed' ? 'their judge requests failed after every retry' : "the judge's reply could not be read";
          return `incomplete candidate: ${domainLabel(r.domain)}: ${r.rows} of ${r.paired} candidate rows have no grade (${why}) where the baseline's are valid ${PARTIAL}`;
        }
        case 'incomplete':
          switch (r.cause) {
            case 'missing-rows': {
              const empty = r.emptyDomains.length ? ` (no rows at all in ${r.emptyDomains.map(domainLabel).join(', ')})` : '';
              return `incomplete candidate: ${r.rows} row(s) of the baseline are missing from ${candidate}${empty} ${PARTIAL}`;
            }
            case 'unfinished':
              return `incomplete candidate: the manifest of ${candidate} says the run is unfinished ${PARTIAL}`;
            case 'no-generation':
              return `incomplete candidate: ${domainLabel(r.domain)}: ${r.rows} of ${r.paired} candidate rows have no generation (their inference failed) where the baseline's are valid ${PARTIAL}`;
          }
      }
    },
    remedy: (remedy, candidate, awb) => {
      const how =
        remedy === 'infer-and-judge'
          ? `run the commands that made it once more with --retry-failed added (\`${awb} infer ... --retry-failed\` for rows without a generation, then \`${awb} judge ... --retry-failed\`)`
          : `run the judge command that made it once more with --retry-failed added (\`${awb} judge ... --retry-failed\`)`;
      return `to complete ${candidate}, ask its failed rows again: ${how}; or gate on the rows in common with --allow-partial`;
    },
    untested,
    rule: 'fails when a one-sided sign-flip randomization test over trajectories finds candidate - baseline below -fail_below for Overall or a domain (Holm over all tests, family-wise error alpha), when Overall (or a domain of `domains`, when given) has too few trajectories to test, or when the candidate is partial or the runs are not comparable (unless allowed)',
    notTested: (u) => `not tested: ${untested(u)}`,
    method: (g) => {
      const small = g.domains
        ? 'Overall, or a domain named by --domains, with too few trajectories for any outcome to be significant fails the gate, which passes nothing it could not test.'
        : 'A domain with too few trajectories for any outcome to be significant is reported as not tested, never as a failure; Overall too small to test fails the gate, which passes nothing it could not test.';
      return `Gate: for Overall and each domain, a one-sided sign-flip randomization test over trajectories of "candidate - baseline >= -${formatFixed(g.threshold)}" (exact when the runs differ by judge noise alone); Holm's step-down procedure over the ${tests(g.tests.length)} keeps the chance that judge noise alone fails the gate at or below ${percent(g.alpha)}. ${small}`;
    },
  };
}

export const COMPARE_LINES: CompareWords = {
  baseline: (label, about) => `Baseline:  ${label} (${about})`,
  candidate: (label, about) => `Candidate: ${label} (${about})`,
  about: (file, rows, standing) => [`${file}, ${rows} rows`, ...standing].join('; '),
  domains: (labels) => `Domains:   ${labels.join(', ')} only (--domains; Overall is their macro)`,
  intervals:
    'Intervals: 95% cluster-robust t intervals over trajectories (domain + id): the paired row differences summed per trajectory, the CR2 standard error (leverage-corrected for few, unequal trajectories) and Bell-McCaffrey degrees of freedom; Overall (macro) is the mean of the domain deltas, with Welch-Satterthwaite degrees of freedom.',
  intervalsMethod:
    'cluster-robust t over trajectories (domain + id), paired: CR2 standard error (leverage-corrected), Bell-McCaffrey degrees of freedom; Overall: Welch-Satterthwaite',
  verdict: 'Verdict: "worse"/"better" when that interval excludes 0 (each line on its own, not corrected for the number of lines).',
  changedTitle: (rows) => `The ${rows} row(s) that changed most (total score, 0-100; the command below shows them)`,
  rowsCommand: (command) => `The rows that changed most, prediction beside ground truth: ${command}`,
};
