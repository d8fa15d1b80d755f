/** What can go wrong in score/ that the user can fix, as data; worded in src/commands/words/score.ts. */
export type ScoreFault = never;
