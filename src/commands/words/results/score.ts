import { atLine } from '../../../core/errors.js';
import { domainLabel } from '../../../core/domains.js';
import { earlierStageProblem } from '../../../core/rows/index.js';
import { MODE_FIELD, type FieldProblem, type JudgeMode, type ScoreFault } from '../../../core/score/index.js';
import type { Words } from '../words.js';

/** What marks a row of the mode: its field, or (rubric) the lack of every mode field. */
const fields = (mode: JudgeMode): string => (mode === 'rubric' ? `none of ${Object.values(MODE_FIELD).join(', ')}` : MODE_FIELD[mode]);

/** The domains compare was limited to, as the refusal names them. */
const within = (domains: readonly string[] | undefined): string => (domains ? ` in ${domains.map(domainLabel).join(', ')} (--domains)` : '');

function problemWords(p: FieldProblem): string {
  if (p.kind === 'type') return `expected ${p.expected.join(' or ')}, ${p.got === undefined ? 'but it is missing' : `received ${p.got}`}`;
  if (p.kind === 'horizon') return 'is not a horizon (a whole number ≥ 1, or "all")';
  return p.kind === 'value' ? `expected ${p.expected}` : p.text;
}

export const SCORE_WORDS: Words<ScoreFault> = {
  'judged-line-not-json': (f) => atLine(f.file, f.line, undefined, `not valid JSON (${f.reason})`),
  'judged-line-not-object': (f) => atLine(f.file, f.line, undefined, 'not a JSON object'),
  'judged-field-invalid': (f) => atLine(f.file, f.line, f.field, problemWords(f.problem)),
  'judged-grade-invalid': (f) => {
    // Within 1..5 yet refused: say why, or "a grade from 1 to 5, got 4.123" contradicts itself.
    const why = f.value >= 1 && f.value <= 5 ? ', which is no mean of up to five 1-5 grades (read in steps of 1/60)' : '';
    return atLine(f.file, f.line, f.field, `must be 0 (no score) or a grade from 1 to 5 (a mean of 1-5 grades), got ${f.value}${why}`);
  },
  'judged-field-type': (f) => atLine(f.file, f.line, f.field, `expected ${f.expected}, got ${f.got}`),
  'judged-row-repeated': (f) =>
    atLine(
      f.file,
      f.line,
      undefined,
      `the same row as line ${f.earlier} (task, id, turn_idx and content match); a file must hold each row once`,
    ),
  'judge-modes-mixed': (f) =>
    atLine(
      f.file,
      f.line,
      undefined,
      `a ${f.fileMode} file (first row has ${fields(f.fileMode)}) but this row has ${fields(f.rowMode)}; files of different judge modes cannot be mixed`,
    ),
  'choice-failed-mismatch': (f) =>
    atLine(f.file, f.line, 'failed', `must be ${f.expected}, as ${f.mode}.failed: 1 exactly when an order has no choice`),
  'judged-file-of-earlier-stage': (f, awb) => earlierStageProblem(f.file, f.stage, 'judged', awb)!,
  'choice-file-has-no-grades': (f, awb) =>
    `${f.file}: a ${f.mode} file (\`${awb} judge --mode ${f.mode}\`): its rows hold choices, no grades to compare; \`${awb} score\` and \`${awb} report\` show its figures`,
  'judged-file-empty': (f) => `${f.file}: no judged rows (the file has no rows)`,
  'no-valid-judged-rows': (f) => `${f.file}: no valid judged rows (${f.rows === 0 ? 'the file has no rows' : `all ${f.rows} rows failed`})`,
  'no-rows-in-common': (f) =>
    `${f.baseline} and ${f.candidate} have no rows in common${within(f.domains)} (were they made from the same dataset?)`,
  'no-valid-rows-in-common': (f) =>
    `${f.baseline} and ${f.candidate}: none of the ${f.paired} rows in common${within(f.domains)} is valid on both sides`,
  'no-rows-of-domain': (f) => `${f.file}: no rows of domain "${f.domain}"; it has ${f.has.join(', ') || 'no rows'}`,
  'rows-not-found': (f, awb) =>
    `${f.file}: no row ${f.keys.map((k) => `"${k}"`).join(', ')}; a row is named domain/id/turn_idx as compare and the report print it (\`${awb} rows ${f.file}\` lists them all)`,
};
