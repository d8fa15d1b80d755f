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
  'run-incomplete': { kind: 'run-incomplete', run: 'qwen3-8b' },
  'run-mixes-settings': {
    kind: 'run-mixes-settings',
    run: 'qwen3-8b',
    file: 'results/q/judged.jsonl',
    mixed: ['judgements: judge changed (gpt-4o → gpt-5.2-2025-12-11)'],
  },
  'provenance-unknown': { kind: 'provenance-unknown', runs: ['official.jsonl', 'old.jsonl'] },
  'setting-differs': {
    kind: 'setting-differs',
    setting: 'dataset-commit',
    values: [{ value: '1234567890abcdef1234', runs: ['a', 'b'] }, { runs: ['c'] }, { value: 'fedcba0987654321fedc', runs: ['d'] }],
  },
  'setting-unknown': { kind: 'setting-unknown', setting: 'history', runs: ['old'] },
  'rubrics-differ': {
    kind: 'rubrics-differ',
    domains: ['search', 'os'].map((domain, i) => ({
      domain,
      values: ['a', 'b'].map((run, j) => ({ hash: String(2 + 2 * i + j).repeat(64), runs: [run] })),
    })),
  },
  'rubrics-per-domain-unknown': { kind: 'rubrics-per-domain-unknown', runs: ['old-c'] },
  'domains-differ': {
    kind: 'domains-differ',
    sets: [
      { domains: ['mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'], runs: ['wide'] },
      { domains: ['mcp', 'swe'], runs: ['narrow', 'narrower'] },
      { domains: [], runs: ['failed'] },
    ],
  },
  'published-incomparable': {
    kind: 'published-incomparable',
    run: 'qwen3-8b',
    gaps: [
      { kind: 'no-manifest' },
      { kind: 'mixed-settings' },
      { kind: 'rubrics', source: 'bundled', layout: 'awb' },
      { kind: 'rubrics' },
      { kind: 'rubrics', source: 'my-rubrics', layout: 'awb' },
      { kind: 'rubrics', source: 'their-rubrics' },
      { kind: 'rows', had: 198, published: 2170, short: ['mcp', 'os'] },
      { kind: 'rows', had: 2180, published: 2170, short: [] },
      { kind: 'dataset-source', repo: 'me/AgentWorldBench-fork' },
      { kind: 'dataset-source' },
      { kind: 'judge', judge: 'gpt-4o', published: 'gpt-5.2-2025-12-11' },
      { kind: 'judge', published: 'gpt-5.2-2025-12-11' },
      { kind: 'judge-sampling', temperature: 0, published: { temperature: 0.6, maxTokens: 32768 } },
      { kind: 'history' },
      { kind: 'history', history: 'none' },
      { kind: 'horizon', horizon: 'all' },
      { kind: 'unfinished' },
    ],
  },
  'overall-partial': { kind: 'overall-partial', run: 'holed', unscored: ['swe', 'os'], totals: true, macroDomains: 5, domains: 7 },
  'domains-unknown': { kind: 'domains-unknown', domains: ['mpc'] },
  'member-repeats': { kind: 'member-repeats', run: 'panel', repeats: 3 },
  'rows-only-in': { kind: 'rows-only-in', run: 'base', count: 2, examples: ['mcp/7/1', 'os/3/2'] },
  'paired-rows-failed': {
    kind: 'paired-rows-failed',
    baseline: { run: 'base', failed: 1 },
    candidate: { run: 'cand', failed: 3 },
    used: 194,
    paired: 198,
  },
  'drift-models-differ': { kind: 'drift-models-differ', models: ['qwen3-8b', 'qwen3-14b'] },
  'drift-rows-left-out': { kind: 'drift-rows-left-out', missing: 2, failed: 5, rows: 191 },
  'drift-run-incomplete': { kind: 'drift-run-incomplete', run: 'h4' },
};
