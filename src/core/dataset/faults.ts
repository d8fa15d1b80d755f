/** What can go wrong in dataset/ that the user can fix, as data; worded in src/commands/words/dataset.ts. */
export type DatasetFault = never;
