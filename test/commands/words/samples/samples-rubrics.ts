import type { RubricsFault } from '../../../../src/core/rubrics/index.js';

export const RUBRICS_SAMPLES: { [K in RubricsFault['kind']]: Extract<RubricsFault, { kind: K }> } = {
  'rubric-domain-invalid': { kind: 'rubric-domain-invalid', names: ['../etc'], root: '/r' },
  'rubric-missing': { kind: 'rubric-missing', domains: ['chess'], root: '/r', at: 'data/chess_test.jsonl:1' },
  'rubric-empty': { kind: 'rubric-empty', file: '/r/mcp.md' },
  'judge-prompt-empty': { kind: 'judge-prompt-empty', file: '/r/turing.md' },
  'rubric-unreadable': { kind: 'rubric-unreadable', file: '/r/mcp.md', reason: 'EACCES' },
  'rubrics-folder-missing': { kind: 'rubrics-folder-missing', root: '/r' },
  'rubrics-folder-unreadable': { kind: 'rubrics-folder-unreadable', root: '/r', reason: 'EACCES' },
  'rubrics-not-a-folder': { kind: 'rubrics-not-a-folder', root: '/r/mcp.md' },
};
