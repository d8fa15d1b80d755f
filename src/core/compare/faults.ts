/** What can go wrong in compare/ that the user can fix, as data; worded in src/commands/words/results/compare.ts. */
export type CompareFault =
  /** Domains asked for (--domains) that neither run has a row of; `has`: the domains the two runs do have. */
  { kind: 'domains-in-neither-run'; domains: string[]; baseline: string; candidate: string; has: string[] };

/** What compare notes besides comparability, as data; worded in src/commands/words/results/notes.ts. */
export type CompareNotice =
  /** `count` rows only in the run labelled `run`, left out of the deltas; `examples`: some of their keys. */
  | { kind: 'rows-only-in'; run: string; count: number; examples: string[] }
  /** Paired rows failed on a side: left out of the deltas (`paired - used` of `paired`). */
  | {
      kind: 'paired-rows-failed';
      baseline: { run: string; failed: number };
      candidate: { run: string; failed: number };
      used: number;
      paired: number;
    };

/** What compare warns of besides reading the files, as data; worded in src/commands/words/results/warnings.ts. */
export type CompareWarning =
  /** The baseline and the candidate are one file (under any names): every difference is 0, the gate cannot fail. */
  { kind: 'compared-with-itself'; baseline: string; candidate: string };
