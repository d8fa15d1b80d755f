import type { DriftFault } from '../../../../src/core/drift/index.js';

export const DRIFT_SAMPLES: { [K in DriftFault['kind']]: Extract<DriftFault, { kind: K }> } = {
  'drift-no-teacher-forced': { kind: 'drift-no-teacher-forced', files: ['h2/judged.jsonl', 'h4/judged.jsonl'] },
  'drift-no-free-running': { kind: 'drift-no-free-running', file: 'tf/judged.jsonl' },
  'drift-horizon-twice': { kind: 'drift-horizon-twice', horizon: '2', files: ['a/judged.jsonl', 'b/judged.jsonl'] },
  'drift-file-mixes-horizons': { kind: 'drift-file-mixes-horizons', file: 'mixed/judged.jsonl', horizons: ['0', '2'] },
  'drift-no-rows-in-common': { kind: 'drift-no-rows-in-common', files: ['tf/judged.jsonl', 'h2/judged.jsonl'] },
};
