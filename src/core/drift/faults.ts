/** What can go wrong in drift/ that the user can fix, as data; worded in src/commands/words/results/drift.ts. */
export type DriftFault =
  /** No file holds teacher-forced rows (H = 0): the drops have nothing to start from. */
  | { kind: 'drift-no-teacher-forced'; files: string[] }
  /** Only the teacher-forced file: no horizon to draw. */
  | { kind: 'drift-no-free-running'; file: string }
  | { kind: 'drift-horizon-twice'; horizon: string; files: [string, string] }
  /** A file whose rows were made at different horizons. */
  | { kind: 'drift-file-mixes-horizons'; file: string; horizons: string[] }
  /** No row is valid in every run. */
  | { kind: 'drift-no-rows-in-common'; files: string[] };

/** What drift notes besides comparability, as data; worded in src/commands/words/results/notes.ts. */
export type DriftNotice =
  /** The runs are of several world models (`models`). */
  | { kind: 'drift-models-differ'; models: string[] }
  /** Rows of the teacher-forced run left out: `missing` from some run, `failed` in some; `rows` valid in all. */
  | { kind: 'drift-rows-left-out'; missing: number; failed: number; rows: number }
  | { kind: 'drift-run-incomplete'; run: string };
