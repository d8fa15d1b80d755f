import { PUBLISHED_JUDGE, PUBLISHED_SOURCE } from '../../../core/dataset/index.js';
import type { Unranked } from '../../../core/score/index.js';
import type { MethodWords, StandingWords } from '../../../render/words.js';
import type { BestMarks } from '../../../render/view.js';

/*
 * How a leaderboard reads around its figures: why a run is not ranked, and the footnotes that say how it was made (JSON's `method`; `awb score -f csv` prints the --by-judge
 * ones on stderr). render/model.ts picks which apply; renderers get them through NOTE_WORDS (index.ts).
 */
export const METHOD_WORDS: MethodWords = {
  scores:
    "Scores: (mean grade - 1) / 4 x 100 over rows with failed == 0, zero grades skipped, as in the official script. Overall (macro): mean of the domain scores, the published leaderboard's Overall. Overall (micro): mean over all valid rows, what the official script prints.",
  failuresAsLowest: '--failures-as-lowest: failed rows count as the lowest grade (1 on every dimension), a conservative figure.',
  bootstrap: (resamples, seed) =>
    `±: half-width of the 95% bootstrap percentile interval (${resamples} resamples, seed ${seed}), resampling whole trajectories (domain + id), not rows, within each domain; macro resamples each domain independently, micro resamples trajectories across all domains.`,
  byTurnIntervals: "By turn: each bucket's interval resamples the trajectories with turns in it.",
  oneTrajectory: '±n/a: one trajectory with a score, nothing to resample.',
  best: 'Best in a column is marked only among rows that can be compared: Overall only between runs scored on the same domains, published rows only with runs that meet all their conditions.',
  notRanked:
    'Not ranked: a run its manifest calls incomplete, one mixing settings, or one judged under another judge, rubrics, history protocol or data than the complete runs it would be ranked with: listed below the ranked runs, never marked best; "36/40 of 198": 36 valid of the 40 rows judged, of the 198 the run set out to do.',
  panelMember:
    "(judge NAME): one member of the panel on its own, from its grades in each row's panel (its judge tokens only); never marked best.",
  singleJudge: (label, judge) => `${label}: judged by one judge (${judge ?? 'unknown'}), no panel: --by-judge shows that judge's table alone.`,
  usageTitle: (prices) =>
    prices
      ? `Usage and cost (USD per million input/output tokens: infer ${prices.infer}, judge ${prices.judge})`
      : 'Usage (tokens; --price-input/--price-output, or --price-model-*/--price-judge-* per stage, turn them into cost)',
  published: `(published): ${PUBLISHED_SOURCE}, judged by ${PUBLISHED_JUDGE}; no intervals or micro Overall there.`,
};

const OTHER: Record<Extract<Unranked, { kind: 'other' }>['setting'], string> = {
  judge: 'other judge',
  rubrics: 'other rubrics',
  history: 'other history protocol',
  dataset: 'other data',
};

/** Why a run is not ranked: in its leaderboard row ("not ranked: 40 of 198 judged, other judge") and beside compare's runs. */
/** What the leaderboard's best-in-column marks mean: bold where bold shows (a colour terminal, markdown), else a `*`. */
export const BEST_MARKS: BestMarks = { bold: 'Bold: best in its column.', star: '*: best in its column.' };

export const STANDING_WORDS: StandingWords = {
  reason: (u) => {
    switch (u.kind) {
      case 'incomplete':
        return u.expected !== undefined && u.expected > u.rows ? `${u.rows} of ${u.expected} judged` : 'incomplete';
      case 'mixed':
        return 'mixed settings';
      case 'other':
        return OTHER[u.setting];
    }
  },
  notRanked: (reasons) => `not ranked: ${reasons.join(', ')}`,
};
