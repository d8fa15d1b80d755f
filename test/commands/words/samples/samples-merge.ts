import type { MergeFault } from '../../../../src/core/merge/index.js';

const key = (id: number) => `mcp:${id}:1:abc`;

export const MERGE_SAMPLES: { [K in MergeFault['kind']]: Extract<MergeFault, { kind: K }> } = {
  'merge-output-is-folder': { kind: 'merge-output-is-folder', out: 'runs' },
  'merge-over-shard': { kind: 'merge-over-shard', out: 's1.jsonl', index: 1, count: 2 },
  'merge-output-exists': { kind: 'merge-output-exists', out: 'all.jsonl' },
  'shard-is-folder': { kind: 'shard-is-folder', shard: 'runs' },
  'shard-given-twice': { kind: 'shard-given-twice', shard: 'b.jsonl', also: 'a.jsonl' },
  'shard-manifest-missing': { kind: 'shard-manifest-missing', shard: 's2.jsonl' },
  'shard-other-stage': { kind: 'shard-other-stage', shard: 's2.jsonl', stage: 'judge', first: 's1.jsonl', firstStage: 'infer' },
  'shard-other-settings': {
    kind: 'shard-other-settings',
    shard: 's2.jsonl',
    first: 's1.jsonl',
    differences: ['temperature: was 0, now 1'],
  },
  'shard-other-rubric': {
    kind: 'shard-other-rubric',
    shard: 's2.jsonl',
    domain: 'mcp',
    sha: 'a'.repeat(64),
    other: 's1.jsonl',
    otherSha: 'b'.repeat(64),
  },
  'shard-twice': { kind: 'shard-twice', first: 's1.jsonl', second: 's1b.jsonl', shard: '1/2' },
  'shards-other-splits': { kind: 'shards-other-splits', counts: [2, 3] },
  'shard-cut-short': { kind: 'shard-cut-short', shard: 's2.jsonl', line: 7 },
  'shard-damaged': { kind: 'shard-damaged', problem: 's2.jsonl:3: not valid JSON' },
  'rows-duplicated': { kind: 'rows-duplicated', rows: [{ key: key(4), first: 's1.jsonl:2', again: 's2.jsonl:5' }] },
  'rows-unexpected': { kind: 'rows-unexpected', source: ['data'], keys: [key(9)] },
  'shards-leave-gaps': { kind: 'shards-leave-gaps', missing: [key(1), key(2)], failed: [key(3)] },
  'shard-source-missing': { kind: 'shard-source-missing', path: 'data', given: false },
};
