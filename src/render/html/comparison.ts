import { domainLabel } from '../../core/domains.js';
import type { RunPair } from '../../core/report/index.js';
import { formatFixed, formatSigned, type Ratio } from '../../core/score/index.js';
import type { Delta } from '../../core/compare/index.js';
import { intervalText } from '../compare-view.js';
import type { LabelWords } from '../words.js';

/** What the page's comparison view draws: per ordered pair of runs, its paired deltas as `awb compare` computes and prints them. */

const num = (r: Ratio | undefined): number | null => (r === undefined ? null : r.toNumber());

function deltaJson(d: Delta, paired: number, words: LabelWords) {
  return {
    base: formatFixed(d.baseline),
    cand: formatFixed(d.candidate),
    delta: num(d.delta),
    dt: formatSigned(d.delta),
    ci: intervalText(d.ci, words),
    // The interval excludes 0: a change the paired rows support.
    sure: d.ci !== undefined && (d.ci.lo > 0 || d.ci.hi < 0),
    paired,
  };
}

export function comparisonJson(pairs: readonly RunPair[], words: LabelWords) {
  return pairs.map(({ baseline, candidate, result }) => ({
    b: baseline,
    c: candidate,
    domains: result.domains.map((d) => ({ id: d.domain, label: domainLabel(d.domain), ...deltaJson(d, d.paired, words) })),
    overall: deltaJson(result.overall, result.overall.paired, words),
    onlyB: result.onlyBaseline.count,
    onlyC: result.onlyCandidate.count,
  }));
}
