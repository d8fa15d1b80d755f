import type { DriftWords } from '../../../render/words.js';

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
