import type { StageFault } from '../../../../src/core/stage/index.js';

export const STAGE_SAMPLES: { [K in StageFault['kind']]: Extract<StageFault, { kind: K }> } = {
  'download-option-with-data': { kind: 'download-option-with-data', option: 'revision' },
  'horizon-without-history': { kind: 'horizon-without-history' },
  'option-outside-mode': { kind: 'option-outside-mode', option: 'repeat', mode: 'rubric' },
  'pairwise-without-reference': { kind: 'pairwise-without-reference' },
  'seed-with-repeat': { kind: 'seed-with-repeat' },
  'panel-option-without-panel': { kind: 'panel-option-without-panel', option: 'memberBaseUrl' },
  'not-a-panel-member': { kind: 'not-a-panel-member', member: 'c', models: ['a', 'b'] },
  'judge-endpoint-missing': { kind: 'judge-endpoint-missing', unserved: ['b'] },
  'no-predictions-file': { kind: 'no-predictions-file', path: 'out/predictions.jsonl' },
  'dry-run-bad-row': { kind: 'dry-run-bad-row', message: 'data/mcp_test.jsonl:4: turn_idx: is missing' },
  'max-cost-unpriced': { kind: 'max-cost-unpriced', missing: ['priceInput', 'priceOutput'] },
  'max-cost-with-batch': { kind: 'max-cost-with-batch' },
};
