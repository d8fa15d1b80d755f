import type { EndpointFault } from '../../../../src/core/endpoints/index.js';

const judge = { role: 'judge', endpoint: 'https://api.openai.com/v1' } as const;
const model = { role: 'world model', endpoint: 'http://127.0.0.1:8000/v1' } as const;

export const ENDPOINT_SAMPLES: { [K in EndpointFault['kind']]: Extract<EndpointFault, { kind: K }> } = {
  'request-over-token-limit': {
    kind: 'request-over-token-limit',
    endpoint: 'https://api.openai.com/v1',
    tokens: 42_000,
    limit: 30_000,
    promptTokens: 9_000,
    promptFits: true,
  },
  'key-rejected': {
    kind: 'key-rejected',
    ...judge,
    key: {
      from: 'none',
      option: '--judge-api-key',
      variables: ['AWB_JUDGE_API_KEY', 'OPENAI_API_KEY'],
      emptyVariables: ['OPENAI_API_KEY'],
    },
  },
  'access-refused': { kind: 'access-refused', ...judge, said: '403 Project does not have access to model gpt-5.2' },
  'no-quota': { kind: 'no-quota', ...judge, said: '429 You exceeded your current quota' },
  'unknown-model': {
    kind: 'unknown-model',
    ...model,
    model: 'my-model',
    status: 400,
    said: "400 Server is pinned to 'local/tiny-llama'; requested 'my-model'.",
  },
  'model-not-served': {
    kind: 'model-not-served',
    ...judge,
    model: 'my-model',
    served: ['Qwen/Qwen3-8B'],
    said: "400 Server is pinned to 'local/tiny-llama'; requested 'my-model'.",
  },
  'models-not-json': { kind: 'models-not-json', ...model, said: '<html><head><title>Login</title>' },
  'models-route-missing': { kind: 'models-route-missing', ...model, endpoint: 'http://127.0.0.1:8000', status: 404 },
  'models-check-failed': { kind: 'models-check-failed', ...model, said: '400 Bad Request', status: 400 },
  'endpoint-unreachable': { kind: 'endpoint-unreachable', ...model, endpoint: 'https://127.0.0.1:8000/v1', code: 'EPROTO' },
  'endpoint-silent': { kind: 'endpoint-silent', ...model, seconds: 10 },
  'endpoints-dead': { kind: 'endpoints-dead', ...model, several: true, causes: ['ECONNREFUSED'], seconds: 12 },
  'settings-refused': {
    kind: 'settings-refused',
    ...judge,
    count: 10,
    reason: "400 Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    sent: { maxTokens: 4096 },
    setting: { name: 'max_tokens' },
  },
  'budget-over-context': {
    kind: 'budget-over-context',
    ...model,
    count: 10,
    reason:
      "400 This model's maximum context length is 32768 tokens. However, you requested 32768 output tokens and your prompt contains at least 1 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
    over: { context: 32768, budget: 32768 },
    sent: { maxTokens: 32768 },
  },
  'failures-repeated': {
    kind: 'failures-repeated',
    ...model,
    count: 10,
    reason: 'Connection error: socket hang up',
    failure: 'connection',
    stream: false,
  },
  'batch-unreachable': { kind: 'batch-unreachable', endpoint: 'https://api.openai.com/v1', said: 'Connection error.' },
  'batch-unsupported': { kind: 'batch-unsupported', endpoint: 'http://127.0.0.1:8000/v1', status: 404, said: '404 Not Found' },
  'batch-failed': { kind: 'batch-failed', endpoint: 'https://api.openai.com/v1', said: '500 Internal Server Error' },
  'batch-state-elsewhere': {
    kind: 'batch-state-elsewhere',
    path: 'results/m/judged.batches.json',
    recorded: { model: 'gpt-5.2', endpoint: 'https://api.openai.com/v1' },
    given: { model: 'gpt-5-mini', endpoint: 'https://api.openai.com/v1' },
  },
  'batch-settings-changed': { kind: 'batch-settings-changed', path: 'results/m/judged.batches.json', differences: ['temperature 0.6 → 0'] },
  'batch-request-too-large': { kind: 'batch-request-too-large', what: 'swe/abc turn 3', bytes: 210_000_000, limit: 200_000_000 },
  'batch-failed-whole': {
    kind: 'batch-failed-whole',
    id: 'batch_1',
    lines: 120,
    why: 'line 3: invalid model',
    file: 'judged.batch-1.jsonl',
  },
  'batch-not-found': { kind: 'batch-not-found', endpoint: 'https://api.openai.com/v1', id: 'batch_1', path: 'judged.batches.json' },
  'batch-results-unreadable': { kind: 'batch-results-unreadable', path: 'judged.batch-1.results.jsonl', line: 1 },
};
