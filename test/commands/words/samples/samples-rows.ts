import type { RowsFault } from '../../../../src/core/rows/index.js';

export const ROWS_SAMPLES: { [K in RowsFault['kind']]: Extract<RowsFault, { kind: K }> } = {
  'file-error': { kind: 'file-error', path: 'data/mcp_test.jsonl', code: 'ENOSPC' },
  'input-compressed': { kind: 'input-compressed', path: 'mcp_test.jsonl', format: 'gzip', tool: 'gunzip -k' },
  'input-utf16': { kind: 'input-utf16', path: 'mcp_test.jsonl' },
  'input-cr-endings': { kind: 'input-cr-endings', path: 'mcp_test.jsonl' },
  'input-shrank': { kind: 'input-shrank', path: 'mcp_test.jsonl' },
  'data-folder-is-file': { kind: 'data-folder-is-file', dir: 'data.jsonl' },
  'no-data-folder': { kind: 'no-data-folder', dir: 'dataa' },
  'no-test-files': { kind: 'no-test-files', dir: 'data' },
  'data-lacks-domains': { kind: 'data-lacks-domains', dir: 'data', missing: ['chess'], found: ['mcp', 'search'] },
  'no-rows-for-domains': { kind: 'no-rows-for-domains', missing: ['chess'], files: ['a.jsonl', 'b.jsonl'] },
  'shard-engine-none': { kind: 'shard-engine-none', variables: ['JOB_COMPLETION_INDEX', 'CI_NODE_INDEX'] },
  'shard-engines-several': {
    kind: 'shard-engines-several',
    engines: [
      { name: 'Kubernetes Indexed Job', variable: 'JOB_COMPLETION_INDEX' },
      { name: 'GitLab CI parallel', variable: 'CI_NODE_INDEX' },
    ],
  },
  'shard-engine-value': {
    kind: 'shard-engine-value',
    variable: 'CI_NODE_INDEX',
    value: '0',
    expected: 'a whole number from 1 to 4 (1-based, of 4)',
  },
  'shard-count-missing': { kind: 'shard-count-missing', engine: 'Kubernetes Indexed Job', variable: 'AWB_SHARD_COUNT' },
  'shard-count-conflict': { kind: 'shard-count-conflict', engine: 'GitLab CI parallel', variable: 'CI_NODE_TOTAL', count: 4, given: 8 },
};
