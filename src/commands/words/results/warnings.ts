import { atLine } from '../../../core/errors.js';
import type { AgreementWarning } from '../../../core/agreement/index.js';
import type { CompareWarning } from '../../../core/compare/index.js';
import type { ScoreWarning } from '../../../core/score/index.js';
import type { NoticeWords } from '../words.js';

/*
 * The warnings of the commands that read judged files (score, compare, rows, report, drift, agreement, publish):
 * core returns them as data, each kind's sentence is built here once. Printed to stderr (printWarnings) and carried
 * in JSON's `warnings`, beside their data in `warnings_data`.
 */

const UNKNOWN = 'its provenance counts as unknown';

export const SCORE_WARNINGS: NoticeWords<ScoreWarning> = {
  'judged-line-cut': (w) =>
    atLine(w.file, w.line, undefined, 'the last line is cut short (no newline, not valid JSON), probably by an interrupted run: skipped'),
  'manifest-not-json': (w) => `${w.path}: not valid JSON; ${UNKNOWN}`,
  'manifest-invalid': (w) => `${w.path}: ${w.field || 'manifest'}: ${w.problem}; ${UNKNOWN}`,
  'manifest-unreadable': (w) => `${w.path}: cannot read (${w.reason}); ${UNKNOWN}`,
  'manifest-of-predictions': (w) =>
    `${w.path}: is the manifest of a predictions file (stage "infer"), not of a judged file; judge and rubrics are unknown`,
  'manifest-upstream-invalid': (w) =>
    `${w.path}: upstream: ${w.problem === undefined ? 'invalid manifest' : `${w.field || 'manifest'}: ${w.problem}`}; the predictions' settings count as unknown`,
  'file-given-twice': (w) => `${w.earlier} and ${w.file} are the same file: its run is shown twice`,
  'choice-file-unpriced': (w) =>
    `${w.file}: score counts no tokens of the ${w.mode} mode, so the --price-… options leave it unpriced; the token totals of its judge are under usage in ${w.manifest}`,
  'choice-file-no-panel': (w) => `${w.file}: judged by one judge, no panel: --by-judge shows its ${w.mode} figures alone`,
};

export const COMPARE_WARNINGS: NoticeWords<CompareWarning> = {
  'compared-with-itself': (w) => `${w.baseline} and ${w.candidate} are the same file: every difference is 0, so the gate cannot fail`,
};

export const AGREEMENT_WARNINGS: NoticeWords<AgreementWarning> = {
  'judged-other-predictions': (w) =>
    `${w.a} and ${w.b}: ${w.rows} of the rows they share judged different predictions (gen): their agreement mixes judges and predictions`,
};
