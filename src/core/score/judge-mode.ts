import { UserError, atLine } from '../errors.js';

/** How a judged file was judged, told by the field its rows carry. */
export type JudgeMode = 'rubric' | 'turing' | 'pairwise' | 'repeat';

export const MODE_FIELD = { turing: 'turing', pairwise: 'pairwise', repeat: 'judge_repeats' } as const;
/** The modes a row names by a field of its own. */
export type ModeWithField = keyof typeof MODE_FIELD;

/** A row's mode from which of the mode fields it has (none: rubric). */
export function modeOfRow(has: (field: string) => boolean): JudgeMode {
  return (Object.keys(MODE_FIELD) as ModeWithField[]).find((m) => has(MODE_FIELD[m])) ?? 'rubric';
}

/** A file holds one mode, its first row's: a row of another is refused at its line, whichever reader meets it. */
export function mixedModes(path: string, lineNo: number, fileMode: JudgeMode, rowMode: JudgeMode): UserError {
  const fields = (mode: JudgeMode) => (mode === 'rubric' ? `none of ${Object.values(MODE_FIELD).join(', ')}` : MODE_FIELD[mode]);
  return new UserError(
    atLine(
      path,
      lineNo,
      undefined,
      `a ${fileMode} file (first row has ${fields(fileMode)}) but this row has ${fields(rowMode)}; files of different judge modes cannot be mixed`,
    ),
  );
}

/** A turing or pairwise file given to a command that reads grades (compare, rows): what it is and what shows it. */
export function choiceFileError(file: string, mode: 'turing' | 'pairwise', awb: string): UserError {
  return new UserError(
    `${file}: a ${mode} file (\`${awb} judge --mode ${mode}\`): its rows hold choices, no grades to compare; \`${awb} score\` and \`${awb} report\` show its figures`,
  );
}
