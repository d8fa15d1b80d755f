import type { PublishFault } from '../../../../src/core/publish/index.js';

export const PUBLISH_SAMPLES: { [K in PublishFault['kind']]: Extract<PublishFault, { kind: K }> } = {
  'publish-unranked': {
    kind: 'publish-unranked',
    file: 'results/m/judged.jsonl',
    gaps: [
      { kind: 'rubrics', source: 'bundled', layout: 'awb' },
      { kind: 'judge', judge: 'gpt-4o', published: 'gpt-5.2-2025-12-11' },
    ],
  },
  'publish-nowhere': { kind: 'publish-nowhere' },
  'publish-not-rubric': { kind: 'publish-not-rubric', file: 'judged-turing.jsonl', mode: 'turing' },
  'publish-no-scores': { kind: 'publish-no-scores', file: 'judged.jsonl' },
  'publish-repo-invalid': { kind: 'publish-repo-invalid', option: 'repo', value: 'my-model' },
  'publish-no-token': { kind: 'publish-no-token' },
  'publish-token-malformed': { kind: 'publish-token-malformed' },
  'publish-refused': {
    kind: 'publish-refused',
    hub: 'https://huggingface.co',
    repo: 'org/model',
    step: 'pull-request',
    status: 403,
    message: 'Forbidden: pass `create_pr=1` as a query parameter to create a Pull Request',
  },
  'publish-unreachable': { kind: 'publish-unreachable', hub: 'https://huggingface.co', step: 'upload-traces', code: 'ECONNREFUSED' },
};
