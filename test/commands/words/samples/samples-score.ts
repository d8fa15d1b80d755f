import type { ScoreFault } from '../../../../src/core/score/index.js';

const at = { file: 'runs/judged.jsonl', line: 7 };

export const SCORE_SAMPLES: { [K in ScoreFault['kind']]: Extract<ScoreFault, { kind: K }> } = {
  'judged-line-not-json': {
    kind: 'judged-line-not-json',
    ...at,
    reason: "Expected ',' or '}' after property value in JSON at position 12",
  },
  'judged-line-not-object': { kind: 'judged-line-not-object', ...at },
  'judged-field-invalid': { kind: 'judged-field-invalid', ...at, field: 'turn_idx', problem: { kind: 'type', expected: ['number'] } },
  'judged-grade-invalid': { kind: 'judged-grade-invalid', ...at, field: 'realism', value: 4.123 },
  'judged-field-type': { kind: 'judged-field-type', ...at, field: 'prompt[2]', expected: 'a string', got: 'number' },
  'judged-row-repeated': { kind: 'judged-row-repeated', ...at, earlier: 3 },
  'judge-modes-mixed': { kind: 'judge-modes-mixed', ...at, fileMode: 'rubric', rowMode: 'turing' },
  'choice-failed-mismatch': { kind: 'choice-failed-mismatch', ...at, mode: 'pairwise', expected: 1 },
  'judged-file-of-earlier-stage': { kind: 'judged-file-of-earlier-stage', file: 'runs/predictions.jsonl', stage: 'prediction' },
  'choice-file-has-no-grades': { kind: 'choice-file-has-no-grades', file: 'runs/turing.jsonl', mode: 'turing' },
  'judged-file-empty': { kind: 'judged-file-empty', file: 'runs/empty.jsonl' },
  'no-valid-judged-rows': { kind: 'no-valid-judged-rows', file: 'runs/judged.jsonl', rows: 12 },
  'no-rows-in-common': { kind: 'no-rows-in-common', baseline: 'base.jsonl', candidate: 'cand.jsonl' },
  'no-valid-rows-in-common': {
    kind: 'no-valid-rows-in-common',
    baseline: 'base.jsonl',
    candidate: 'cand.jsonl',
    paired: 40,
    domains: ['terminal', 'os'],
  },
  'no-rows-of-domain': { kind: 'no-rows-of-domain', file: 'runs/judged.jsonl', domain: 'andriod', has: ['android', 'mcp'] },
  'rows-not-found': { kind: 'rows-not-found', file: 'runs/judged.jsonl', keys: ['web/563640682553697/9'] },
};
