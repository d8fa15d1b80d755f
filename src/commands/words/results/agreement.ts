import type { AgreementFault } from '../../../core/agreement/index.js';
import type { Words } from '../words.js';

export const AGREEMENT_WORDS: Words<AgreementFault> = {
  'agreement-too-few-files': (f, awb) =>
    `agreement needs two judged files or more of the same predictions (got ${f.files.length ? `only ${f.files.join(', ')}` : 'none'}); to score one file use \`${awb} score\``,
  'agreement-no-common-rows': (f) =>
    `${f.a} and ${f.b} have no row in common (task, id, turn_idx and content): they judged different predictions; agreement compares judgements of the same rows`,
  'agreement-choice-file': (f, awb) =>
    `${f.path}: a ${f.mode} file (\`${awb} judge --mode ${f.mode}\`): its rows hold choices, no grades to agree on; \`${awb} score\` shows its figures`,
  'agreement-unlabelled': (f) =>
    `${f.path}: its manifest names no ${f.missing === 'model' ? 'world model' : 'judge'}; name it in the argument: MODEL@JUDGE=${f.path}`,
  'agreement-empty-label': (f) => `"${f.arg}": nothing before "=": give LABEL=FILE, or the file alone`,
  'agreement-run-twice': (f) =>
    `${f.first} and ${f.second} are both ${f.model} judged by ${f.judge}: --by-model takes one file per model and judge (label them MODEL@JUDGE=FILE if they differ)`,
  'agreement-too-few-runs': (f, awb) =>
    `--by-model needs two models or more, each judged by two judges or more (got ${f.models} model${f.models === 1 ? '' : 's'} and ${f.judges} judge${f.judges === 1 ? '' : 's'}); without --by-model, \`${awb} agreement\` compares judges of the same predictions`,
};
