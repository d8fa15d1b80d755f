/** What can go wrong in rubrics/ that the user can fix, as data; worded in src/commands/words/rubrics.ts. */
export type RubricsFault =
  | { kind: 'rubric-domain-invalid'; names: string[]; root: string }
  /** `at`: where the data first names the (first) domain, `file:line`. */
  | { kind: 'rubric-missing'; domains: string[]; root: string; at?: string }
  | { kind: 'rubric-empty'; file: string }
  | { kind: 'judge-prompt-empty'; file: string }
  | { kind: 'rubric-unreadable'; file: string; reason: string }
  | { kind: 'rubrics-folder-missing'; root: string }
  | { kind: 'rubrics-folder-unreadable'; root: string; reason: string }
  | { kind: 'rubrics-not-a-folder'; root: string };
