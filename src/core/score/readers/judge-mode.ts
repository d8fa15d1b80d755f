import type { JudgeMode } from '../faults.js';

export type { JudgeMode } from '../faults.js';

export const MODE_FIELD = { turing: 'turing', pairwise: 'pairwise', repeat: 'judge_repeats' } as const;
/** The modes a row names by a field of its own. */
export type ModeWithField = keyof typeof MODE_FIELD;

/** A row's mode from which of the mode fields it has (none: rubric). */
export function modeOfRow(has: (field: string) => boolean): JudgeMode {
  return (Object.keys(MODE_FIELD) as ModeWithField[]).find((m) => has(MODE_FIELD[m])) ?? 'rubric';
}
