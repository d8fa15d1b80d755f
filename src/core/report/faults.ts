/** What can go wrong in report/ that the user can fix, as data; worded in src/commands/words/report.ts. */
export type ReportFault = never;
