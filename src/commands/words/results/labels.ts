import type { LabelWords, RowWords } from '../../../render/words.js';

/* The short labels of the views' cells and rows, and `awb rows`' blocks: renderers get them through NOTE_WORDS (index.ts). */

export const LABELS: LabelWords = {
  na: 'n/a',
  noHalfWidth: '±n/a',
  overall: 'Overall',
  overallMacro: 'Overall (macro)',
  overallMicro: 'Overall (micro)',
  allDomains: 'All domains',
  verdict: { worse: 'worse', better: 'better', unclear: 'no clear difference' },
  lengthBias: 'length bias',
  disagree: { yes: 'yes', no: 'no' },
  swaps: (share) => `swaps ${share}`,
  horizon: (h) => (h === 0 ? 'H=0 (teacher-forced)' : `H=${h}`),
  noDrop: 'none',
  noDropCalled: 'n/a (no intervals)',
};

export const ROW_WORDS: RowWords = {
  failed: (error) => `FAILED${error !== undefined ? `: ${error}` : ''}`,
  total: (grade) => `total ${grade}`,
  action: (text) => `action: ${text}`,
  prediction: 'prediction (as judged)',
  groundTruth: (index) => `ground truth (response[${index}])`,
  generated: (turn) => `turn ${turn}: generated (rollout)`,
  real: (turn, index) => `turn ${turn}: real (response[${index}])`,
  strengths: 'strengths:',
  weaknesses: 'weaknesses:',
  empty: '(empty)',
  moreLines: (n) => `${n} more line(s)`,
};
