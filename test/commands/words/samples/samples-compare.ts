import type { CompareFault } from '../../../../src/core/compare/index.js';

export const COMPARE_SAMPLES: { [K in CompareFault['kind']]: Extract<CompareFault, { kind: K }> } = {
  'domains-in-neither-run': {
    kind: 'domains-in-neither-run',
    domains: ['termnal'],
    baseline: 'base.jsonl',
    candidate: 'cand.jsonl',
    has: ['mcp', 'terminal', 'os'],
  },
};
