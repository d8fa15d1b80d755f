/** What can go wrong in runner/ that the user can fix, as data; worded in src/commands/words/runner.ts. */
export type RunnerFault = never;
