/** What can go wrong in download/ that the user can fix, as data; worded in src/commands/words/download.ts. */
export type DownloadFault = never;
