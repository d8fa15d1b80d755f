import type { Notice } from '../../../../src/core/errors.js';

const model = { role: 'world model', endpoint: 'http://127.0.0.1:8000/v1' } as const;
const listed = { role: 'models', endpoint: 'http://127.0.0.1:8000/v1' } as const;

/** One notice of every kind, typed by kind: a new kind without a sample does not compile. */
export const NOTICE_SAMPLES: { [K in Notice['kind']]: Extract<Notice, { kind: K }> } = {
  'endpoint-set-aside': { kind: 'endpoint-set-aside', fault: { kind: 'endpoint-unreachable', ...model, code: 'ECONNREFUSED' }, left: 2 },
  'model-unlisted': { kind: 'model-unlisted', ...model, model: '/models/qwen-0.5b', listed: ['Qwen/Qwen2.5-0.5B-Instruct'] },
  'replies-abandoned': { kind: 'replies-abandoned', role: 'world model', count: 3 },
  'malformed-replies-retried': { kind: 'malformed-replies-retried', role: 'judge', count: 75 },
  'usage-lost': { kind: 'usage-lost', count: 2 },
  'asked-online': { kind: 'asked-online', count: 1 },
  'no-models-listed': { kind: 'no-models-listed', ...listed },
  'listed-names-refused': {
    kind: 'listed-names-refused',
    ...listed,
    refused: ['Qwen/Qwen2.5-0.5B-Instruct'],
    listed: 2,
    said: "400 Server is pinned to 'local/tiny-llama'; requested 'Qwen/Qwen2.5-0.5B-Instruct'.",
  },
  'predictions-without-output': { kind: 'predictions-without-output', stage: 'infer', rows: 40, of: 198, unclosed: 38 },
};
