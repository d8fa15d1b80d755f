import type { AgreementWords, BiasWords, DriftWords, ModesWords } from '../../../render/words.js';

/*
 * What the result views say around their tables besides core's notes: their first lines and footnotes. Renderers
 * get them through NOTE_WORDS (index.ts).
 */

export const DRIFT_LINES: DriftWords = {
  title: (labels) => `Drift of ${labels.join(', ')} on its own predictions`,
  run: (horizon, label, file) => `${horizon}: ${label} (${file})`,
  horizon: 'H: how many earlier observations are the model\'s own predictions (infer --horizon); "all": every earlier turn.',
  intervals: (resamples, seed) =>
    `Brackets: 95% paired bootstrap interval over trajectories (${resamples} resamples, seed ${seed}); a drop is significant when its interval lies above 0.`,
  noIntervals: 'No intervals (--no-ci): no drop is called significant.',
  rows: 'Every figure uses the rows valid in every run. Later actions are replayed from the real trajectory and may not fit a drifted state: see docs/drift.md.',
};

export const MODES_LINES: ModesWords = {
  footnotes: [
    'Fooling rate: % of judgements taking the prediction for the real observation (50 = indistinguishable).',
    'Win rate: % for the candidate over the reference; an order-inconsistent row counts half.',
    'Position consistency: % of rows whose two orders agree. Judge noise: mean per-row SD of repeated totals, 0-100 scale.',
    'Overall: mean of the domains. Brackets: 95% trajectory-bootstrap interval.',
  ],
};

/** A judge or world model as the self-preference line names it: its id and family, or that neither is recorded. */
const named = (id: string | undefined, family: string | undefined) => (id ? `${id} (${family ?? 'family unknown'})` : 'not recorded');

export const BIAS_LINES: BiasWords = {
  heading: 'Bias checks',
  selfPreference: (b) => {
    const what = `judge ${named(b.judge, b.judgeFamily)}, world model ${named(b.model, b.modelFamily)}`;
    if (b.selfPreference) return `${b.label}: self-preference risk: the judge is of the world model's family (${b.judgeFamily}); ${what}`;
    return `${b.label}: ${what}`;
  },
  lengthBias: (label, flagged) =>
    `${label}: length bias: totals move with the prediction's relative length in ${flagged.map((f) => `${f.domain} (${f.slope} per doubling)`).join(', ')}; read the LC score beside the raw one`,
  unmeasured: (label, rows) => `${label}: ${rows} counted rows with an empty prediction or truth are out of the length fit`,
  footnotes: [
    "Slope: points of total per doubling of the prediction's length relative to the truth's (characters); flagged when its 95% interval excludes 0.",
    "LC score: the total the line predicts at the truth's own length (AlpacaEval-LC's idea); Overall: mean over the domains with a fit.",
    'Mean: of the same rows (failed rows are no judgement of length and stay out). Brackets: 95% trajectory-bootstrap interval. See docs/judge-bias.md.',
  ],
};

export const AGREEMENT_LINES: AgreementWords = {
  judge: (label, file, rows, failed) => `${label}: ${file} (${rows} rows, ${failed} failed)`,
  rows: 'Rows: matched rows valid on both sides with that grade; failed rows (no valid grades) are left out and counted under Failed.',
  figures: "Exact: same grade. κw: Cohen's kappa, quadratic weights. α: Krippendorff's alpha, ordinal. r: Pearson. 1 is perfect agreement, 0 chance.",
  meanDiff: (bootstrap) =>
    `Mean A − B: 0-100 points, as scores are; over all domains, the mean of the domains' differences.${bootstrap ? ` Brackets: 95% interval, ${bootstrap.resamples} resamples of whole trajectories within each domain (seed ${bootstrap.seed}).` : ''}`,
  unpaired: (a, b, onlyA, onlyB) => `${a} and ${b}: ${onlyA} rows only in A, ${onlyB} only in B, left out.`,
  more: 'Every domain × dimension: -f csv or -f json.',
  overall: (domains, leftOut) =>
    `Overall: mean of ${domains.length} domains (${domains.join(', ') || 'none'}), those every file has a score for${leftOut.length ? `; left out: ${leftOut.join(', ')}` : ''}.`,
  tau: "τ: Kendall's tau-b, 1 when two judges rank the models alike, −1 when reversed.",
  disagree: 'Judges disagree: share of resamples in which the judges do not all order the pair alike.',
  resamples: (bootstrap) =>
    bootstrap
      ? `Resamples: ${bootstrap.resamples} draws of whole trajectories within each domain, the same draw for every file (seed ${bootstrap.seed}).`
      : 'No bootstrap (--no-ci): Judges disagree says whether the judges order the pair differently.',
};
