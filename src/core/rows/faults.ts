/** What can go wrong in rows/ that the user can fix, as data; worded in src/commands/words/rows.ts. */
export type RowsFault = never;
