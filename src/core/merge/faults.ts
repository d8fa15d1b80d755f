/** What can go wrong in merge/ that the user can fix, as data; worded in src/commands/words/merge.ts. */
export type MergeFault = never;
