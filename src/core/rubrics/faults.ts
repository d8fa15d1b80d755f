/** What can go wrong in rubrics/ that the user can fix, as data; worded in src/commands/words/rubrics.ts. */
export type RubricsFault = never;
