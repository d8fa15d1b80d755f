/** What can go wrong in output/ that the user can fix, as data; worded in src/commands/words/output.ts. */
export type OutputFault = never;
