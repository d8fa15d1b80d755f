/** How a judged file was judged, told by the field its rows carry (judge-mode.ts). */
export type JudgeMode = 'rubric' | 'turing' | 'pairwise' | 'repeat';

/** Where in a judged file: the file and its 1-based line. */
export interface At {
  file: string;
  line: number;
}

/**
 * Why a field's value is refused: a wrong type (`expected` the types allowed, `got` the one that came;
 * absent: the field is missing), a constant other than the one `expected` (as JSON), no horizon, or the schema's own words.
 */
export type FieldProblem =
  | { kind: 'type'; expected: string[]; got?: string }
  | { kind: 'value'; expected: string }
  | { kind: 'horizon' }
  | { kind: 'said'; text: string };

type ChoiceMode = 'turing' | 'pairwise';

/** What can go wrong in score/ that the user can fix, as data; worded in src/commands/words/score.ts. */
export type ScoreFault =
  | ({ kind: 'judged-line-not-json'; reason: string } & At)
  | ({ kind: 'judged-line-not-object' } & At)
  /** A field the schema refuses; `problem`: why (fieldProblem). */
  | ({ kind: 'judged-field-invalid'; field: string | undefined; problem: FieldProblem } & At)
  | ({ kind: 'judged-grade-invalid'; field: string; value: number } & At)
  | ({ kind: 'judged-field-type'; field: string; expected: 'a list of strings' | 'a string'; got: string } & At)
  | ({ kind: 'judged-row-repeated'; earlier: number } & At)
  | ({ kind: 'judge-modes-mixed'; fileMode: JudgeMode; rowMode: JudgeMode } & At)
  | ({ kind: 'choice-failed-mismatch'; mode: ChoiceMode; expected: number } & At)
  /** The file's first row is of a stage before judging. */
  | { kind: 'judged-file-of-earlier-stage'; file: string; stage: 'dataset' | 'prediction' }
  /** A turing or pairwise file given to a command that reads grades (compare, rows). */
  | { kind: 'choice-file-has-no-grades'; file: string; mode: ChoiceMode }
  /** A file with no rows, where rows are listed or compared. */
  | { kind: 'judged-file-empty'; file: string }
  /** A file with no valid row to score (`rows` 0: no rows at all). */
  | { kind: 'no-valid-judged-rows'; file: string; rows: number }
  /** `domains`: the domains compared were only these (compare --domains). */
  | { kind: 'no-rows-in-common'; baseline: string; candidate: string; domains?: string[] }
  | { kind: 'no-valid-rows-in-common'; baseline: string; candidate: string; paired: number; domains?: string[] }
  | { kind: 'no-rows-of-domain'; file: string; domain: string; has: string[] }
  /** Rows named to `awb rows` (domain/id/turn_idx) that the file does not hold. */
  | { kind: 'rows-not-found'; file: string; keys: string[] };
