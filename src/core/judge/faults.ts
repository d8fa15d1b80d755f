/** What can go wrong in judge/ that the user can fix, as data; worded in src/commands/words/judge.ts. */
export type JudgeFault =
  /** The file given as predictions has neither task nor gen: not this benchmark's. */
  | { kind: 'predictions-not-benchmark'; file: string }
  /** The file given as predictions holds dataset rows (no gen). */
  | { kind: 'predictions-are-dataset'; file: string }
  | { kind: 'no-rubric'; domain: string; task: string }
  /** `problem`: the row reader's one line (file, line, field) for the bad reference row. */
  | { kind: 'reference-bad-row'; problem: string }
  | { kind: 'reference-duplicate-row'; file: string; lineNo: number }
  | { kind: 'reference-changed'; file: string }
  /**
   * The judge gave no reply that parses in `questions` questions in a row (ParseStreak): `cut` of them
   * ended at the token limit; `last`: why the last one could not be parsed; `judge`: the panel member, in a panel.
   */
  | { kind: 'judge-never-parses'; questions: number; cut: number; last: string; judge?: string };
