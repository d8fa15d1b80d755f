import type { RunnerFault } from '../../../../src/core/runner/index.js';

export const RUNNER_SAMPLES: { [K in RunnerFault['kind']]: Extract<RunnerFault, { kind: K }> } = {
  'no-rows-planned': { kind: 'no-rows-planned', files: ['data/mcp_test.jsonl', 'data/search_test.jsonl'] },
  'stopped-before-first-request': { kind: 'stopped-before-first-request', stage: 'infer' },
  'output-from-other-data': { kind: 'output-from-other-data', output: 'out/p.jsonl', rows: 3, first: 'out/p.jsonl:7 (mcp/12/0)' },
  'output-of-other-predictions': {
    kind: 'output-of-other-predictions',
    output: 'out/judged.jsonl',
    inputs: ['out/predictions.jsonl'],
    rows: 1,
    first: 'out/judged.jsonl:2 (mcp/3/1)',
  },
  'stopped-at-bad-row': {
    kind: 'stopped-at-bad-row',
    bad: { file: 'data/mcp_test.jsonl', lineNo: 4, message: 'data/mcp_test.jsonl:4: turn_idx: is missing' },
    rowsBefore: true,
  },
};
