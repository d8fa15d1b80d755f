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

/**
 * What rubrics/ tells without stopping. `predictions-without-output`: `rows` of `of` predictions came back with text
 * that holds no output once reasoning is removed (the official script's "No output", graded as such); `unclosed` of
 * them (when known) inside a `<think>` never closed, the mark of a server without a reasoning parser. `soFar`: said
 * while a run goes on (its share passed NO_OUTPUT_SHARE), else at its end; `file`: the judged file score read.
 */
export type RubricsNotice = {
  kind: 'predictions-without-output';
  stage: 'infer' | 'judge' | 'score';
  rows: number;
  of: number;
  unclosed?: number;
  soFar?: boolean;
  file?: string;
};
