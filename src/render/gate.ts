import { domainLabel } from '../core/domains.js';
import { formatFixed, formatSigned } from '../core/score/index.js';
import { GATE_ALPHA, OVERALL, type GateReason, type GateResult, type Untested } from '../core/compare/index.js';
import type { ComparePage } from './compare-view.js';

/*
 * The gate's reasons in words: each typed reason (core/score/gate.ts) as the
 * line the terminal, the markdown summary and JSON's `message` carry.
 */

export const percentText = (x: number): string => `${Number((x * 100).toPrecision(3))}%`;

const lineName = (domain: string): string => (domain === OVERALL ? 'Overall' : domainLabel(domain));
const trajectories = (n: number): string => `${n} ${n === 1 ? 'trajectory' : 'trajectories'}`;
const PARTIAL = '(--allow-partial to gate on the rows in common)';

export function reasonText(r: GateReason, page: ComparePage): string {
  const lc = page.candidate.label;
  switch (r.code) {
    case 'regression':
      return `${lineName(r.domain)}: ${formatSigned(r.delta)} points, worse by more than ${formatFixed(r.threshold)} (one-sided p = ${r.p.toPrecision(2)}, at most ${Number((r.level * 100).toPrecision(2))}% by Holm over ${r.tests === 1 ? 'one test' : `${r.tests} tests`})`;
    case 'untestable':
      if (r.trajectories === 0) {
        return `${lineName(r.domain)} could not be tested: no trajectory has rows valid in both runs, so the gate passes nothing here`;
      }
      return `${lineName(r.domain)} could not be tested: ${trajectories(r.trajectories)} cannot show a drop of any size at the gate's level (${percentText(GATE_ALPHA / r.tests)} for the first of ${r.tests} tests); that takes at least ${r.needed} trajectories, so the gate passes nothing here: compare runs over more trajectories`;
    case 'incomparable':
      return `${page.words.notice(r.note)} (--allow-incomparable to gate anyway)`;
    case 'judge-failures': {
      const why = r.cause === 'request-failed' ? 'their judge requests failed after every retry' : "the judge's reply could not be read";
      return `incomplete candidate: ${domainLabel(r.domain)}: ${r.rows} of ${r.paired} candidate rows have no grade (${why}) where the baseline's are valid ${PARTIAL}`;
    }
    case 'incomplete':
      switch (r.cause) {
        case 'missing-rows': {
          const empty = r.emptyDomains.length ? ` (no rows at all in ${r.emptyDomains.map(domainLabel).join(', ')})` : '';
          return `incomplete candidate: ${r.rows} row(s) of the baseline are missing from ${lc}${empty} ${PARTIAL}`;
        }
        case 'unfinished':
          return `incomplete candidate: the manifest of ${lc} says the run is unfinished ${PARTIAL}`;
        case 'no-generation':
          return `incomplete candidate: ${domainLabel(r.domain)}: ${r.rows} of ${r.paired} candidate rows have no generation (their inference failed) where the baseline's are valid ${PARTIAL}`;
      }
  }
}

/** How to complete a candidate whose failed rows can be asked again, when the gate failed on them; undefined otherwise. */
export function gateRemedy(g: GateResult, page: ComparePage): string | undefined {
  const awb = page.invocation;
  const ungenerated = g.reasons.some((r) => r.code === 'incomplete' && r.cause === 'no-generation');
  if (!ungenerated && !g.reasons.some((r) => r.code === 'judge-failures')) return undefined;
  const how = ungenerated
    ? `run the commands that made it once more with --retry-failed added (\`${awb} infer ... --retry-failed\` for rows without a generation, then \`${awb} judge ... --retry-failed\`)`
    : `run the judge command that made it once more with --retry-failed added (\`${awb} judge ... --retry-failed\`)`;
  return `to complete ${page.candidate.label}, ask its failed rows again: ${how}; or gate on the rows in common with --allow-partial`;
}

export function untestedText(u: Untested): string {
  return `${lineName(u.domain)}: ${trajectories(u.trajectories)}, too few to conclude anything (even all of them moving the same way would not be significant among ${u.tests} tests)`;
}
