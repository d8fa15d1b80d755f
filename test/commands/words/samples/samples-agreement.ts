import type { AgreementFault } from '../../../../src/core/agreement/index.js';

export const AGREEMENT_SAMPLES: { [K in AgreementFault['kind']]: Extract<AgreementFault, { kind: K }> } = {
  'agreement-too-few-files': { kind: 'agreement-too-few-files', files: ['gpt.jsonl'] },
  'agreement-no-common-rows': { kind: 'agreement-no-common-rows', a: 'gpt.jsonl', b: 'claude.jsonl' },
  'agreement-choice-file': { kind: 'agreement-choice-file', path: 'turing.jsonl', mode: 'turing' },
  'agreement-unlabelled': { kind: 'agreement-unlabelled', path: 'results/a/judged.jsonl', missing: 'judge' },
  'agreement-empty-label': { kind: 'agreement-empty-label', arg: '=judged.jsonl' },
  'agreement-run-twice': { kind: 'agreement-run-twice', model: 'qwen3-8b', judge: 'gpt-5', first: 'a.jsonl', second: 'b.jsonl' },
  'agreement-too-few-runs': { kind: 'agreement-too-few-runs', models: 1, judges: 2 },
};
