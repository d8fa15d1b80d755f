import type { JudgeFault } from '../../core/judge/index.js';
import { thisInvocation } from '../shared/invocation.js';
import type { Words } from './words.js';

export const JUDGE_WORDS: Words<JudgeFault> = {
  'predictions-not-benchmark': (f) =>
    `${f.file}: is not AgentWorldBench predictions (its first row has neither task nor gen); judge the predictions.jsonl that \`${thisInvocation()} infer\` writes`,
  'predictions-are-dataset': (f) =>
    `${f.file}: holds dataset rows (no gen), not predictions; run \`${thisInvocation()} infer\` first, then judge the predictions.jsonl it writes`,
  'no-rubric': (f) => `no rubric for domain "${f.domain}" (task "${f.task}"); add ${f.domain}.md to the rubrics folder`,
  'reference-bad-row': (f) => `${f.problem} (reference file)`,
  'reference-duplicate-row': (f) => `${f.file}:${f.lineNo}: the same row appears twice in the reference file`,
  'reference-changed': (f) => `${f.file}: the reference file changed during the run; leave inputs alone during a run`,
};
