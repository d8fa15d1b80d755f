import type { JudgeFault } from '../../../../src/core/judge/index.js';

export const JUDGE_SAMPLES: { [K in JudgeFault['kind']]: Extract<JudgeFault, { kind: K }> } = {
  'predictions-not-benchmark': { kind: 'predictions-not-benchmark', file: 'chats.jsonl' },
  'predictions-are-dataset': { kind: 'predictions-are-dataset', file: 'data/mcp_test.jsonl' },
  'no-rubric': { kind: 'no-rubric', domain: 'chess', task: 'agentworld/chess' },
  'reference-bad-row': { kind: 'reference-bad-row', problem: 'ref.jsonl:3: gen: expected string, got number' },
  'reference-duplicate-row': { kind: 'reference-duplicate-row', file: 'ref.jsonl', lineNo: 9 },
  'reference-changed': { kind: 'reference-changed', file: 'ref.jsonl' },
  'judge-never-parses': { kind: 'judge-never-parses', questions: 8, cut: 1, last: 'reply could not be parsed: no JSON object found' },
};
