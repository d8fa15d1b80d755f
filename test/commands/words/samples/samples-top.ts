import type { TopFault } from '../../../../src/core/errors.js';

export const TOP_SAMPLES: { [K in TopFault['kind']]: Extract<TopFault, { kind: K }> } = {
  'domain-list-empty': { kind: 'domain-list-empty', value: ' , ' },
  'output-holds-json': { kind: 'output-holds-json', path: 'judged.jsonl', use: 'report' },
  'output-is-input': { kind: 'output-is-input', output: 'out.jsonl', input: 'data/mcp_test.jsonl', ofInput: 'manifest', throughLink: true },
  'file-in-the-way': { kind: 'file-in-the-way', at: 'runs/a', option: { name: '--output', takes: 'file' } },
  'cannot-create-folder': { kind: 'cannot-create-folder', at: '/proc/awb' },
  'stream-never-read': { kind: 'stream-never-read', path: 'rows.fifo' },
  'file-unreadable': { kind: 'file-unreadable', path: 'out.jsonl.manifest.json', reason: 'EIO: i/o error' },
  'json-file-not-json': { kind: 'json-file-not-json', path: 'out.jsonl.manifest.json', use: 'resume' },
  'json-file-invalid': {
    kind: 'json-file-invalid',
    path: 'out.jsonl.manifest.json',
    use: 'merge',
    field: 'settings.shard',
    problem: 'expected object',
  },
};
