import type { JudgeFault } from '../../../core/judge/index.js';
import { brief } from '../../../core/shown.js';
import { EXIT, type Words } from '../words.js';

export const JUDGE_WORDS: Words<JudgeFault> = {
  'predictions-not-benchmark': (f, awb) =>
    `${f.file}: is not AgentWorldBench predictions (its first row has neither task nor gen); judge the predictions.jsonl that \`${awb} infer\` writes`,
  'predictions-are-dataset': (f, awb) =>
    `${f.file}: holds dataset rows (no gen), not predictions; run \`${awb} infer\` first, then judge the predictions.jsonl it writes`,
  'no-rubric': (f) => `no rubric for domain "${f.domain}" (task "${f.task}"); add ${f.domain}.md to the rubrics folder`,
  'reference-bad-row': (f) => `${f.problem} (reference file)`,
  'reference-duplicate-row': (f) => `${f.file}:${f.lineNo}: the same row appears twice in the reference file`,
  'reference-changed': (f) => `${f.file}: the reference file changed during the run; leave inputs alone during a run`,
  'judge-never-parses': (f) => {
    // Most replies cut at the limit: the budget, not the model, is the likely cause (a reasoning judge thinking at length).
    const cause =
      f.cut * 2 >= f.questions
        ? `${f.cut} of them stopped at the token limit (finish_reason=length): raise --max-tokens`
        : 'is the model a judge? it does not answer in the format the prompt asks for: pick another --judge-model';
    return {
      message: `stopped judging: none of the first ${f.questions} questions to ${f.judge === undefined ? 'the judge' : `judge ${f.judge}`} got a reply that parses (the last: ${brief(f.last, [], 160)}); ${cause}. The rows judged so far are kept; once fixed, run the same command with --retry-failed to judge them again`,
      exit: EXIT.endpoint,
    };
  },
};
