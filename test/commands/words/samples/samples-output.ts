import type { OutputFault } from '../../../../src/core/output/index.js';

export const OUTPUT_SAMPLES: { [K in OutputFault['kind']]: Extract<OutputFault, { kind: K }> } = {
  'output-is-folder': { kind: 'output-is-folder', path: 'runs', option: '--output' },
  'output-empty': { kind: 'output-empty', option: '--summary' },
  'output-ends-in-separator': { kind: 'output-ends-in-separator', path: 'runs/', option: '--output' },
  'output-name-too-long': { kind: 'output-name-too-long', path: 'x'.repeat(20) },
  'output-beside-too-long': { kind: 'output-beside-too-long', path: 'long.jsonl', option: '--output' },
  'output-unwritable': { kind: 'output-unwritable', path: '/ro/out.jsonl', option: '--output', at: '/ro', code: 'EROFS' },
  'output-busy': { kind: 'output-busy', output: 'out.jsonl', pid: 4242, host: 'ci-7', toDelete: 'out.jsonl.lock' },
  'output-lock-takeover-killed': {
    kind: 'output-lock-takeover-killed',
    output: 'out.jsonl',
    lock: 'out.jsonl.lock',
    guard: 'out.jsonl.lock.takeover',
  },
  'resume-without-manifest': { kind: 'resume-without-manifest', output: 'out.jsonl', manifest: 'out.jsonl.manifest.json' },
  'resume-other-data': {
    kind: 'resume-other-data',
    output: 'out.jsonl',
    files: [{ path: 'data/mcp_test.jsonl', was: '0123456789abcdef'.repeat(4), now: 'fedcba9876543210'.repeat(4) }],
  },
  'resume-other-stage': { kind: 'resume-other-stage', output: 'out.jsonl', was: 'infer', now: 'judge' },
  'resume-other-horizon': { kind: 'resume-other-horizon', output: 'out.jsonl', was: '0', now: '4' },
  'resume-other-settings': {
    kind: 'resume-other-settings',
    output: 'out.jsonl',
    differences: ['temperature: was 0, now 0.7', 'dataset commit: was 0123abc, now 4567def'],
  },
};
