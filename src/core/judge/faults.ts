/** What can go wrong in judge/ that the user can fix, as data; worded in src/commands/words/judge.ts. */
export type JudgeFault = never;
