import type { BadRow } from '../rows/faults.js';

/** What can go wrong in runner/ that the user can fix, as data; worded in src/commands/words/runner.ts. */
export type RunnerFault =
  | { kind: 'no-rows-planned'; files: string[] }
  /** Ctrl-C during the endpoint check: nothing was sent or written. */
  | { kind: 'stopped-before-first-request'; stage: string }
  /** The output holds rows the run's data does not (other data, or edited); `first`: where the first one is. */
  | { kind: 'output-from-other-data'; output: string; rows: number; first: string }
  /** A judge's output graded other predictions than the input's (another model's, a re-run of infer). */
  | { kind: 'output-of-other-predictions'; output: string; inputs: string[]; rows: number; first: string }
  /** --on-bad-row stop met a bad row; `rowsBefore`: rows before it were done and saved. */
  | { kind: 'stopped-at-bad-row'; bad: BadRow; rowsBefore: boolean };
