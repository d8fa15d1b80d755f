/** What can go wrong in agreement/ that the user can fix, as data; worded in src/commands/words/agreement.ts. */
export type AgreementFault =
  /** Agreement needs two judgements of the same rows at least. */
  | { kind: 'agreement-too-few-files'; files: string[] }
  | { kind: 'agreement-no-common-rows'; a: string; b: string }
  /** A turing or pairwise file: choices, no grades to agree on. */
  | { kind: 'agreement-choice-file'; path: string; mode: 'turing' | 'pairwise' }
  /** --by-model: a file whose world model or judge neither its manifest nor its label names. */
  | { kind: 'agreement-unlabelled'; path: string; missing: 'model' | 'judge' }
  /** `=path` with nothing before the `=`. */
  | { kind: 'agreement-empty-label'; arg: string }
  /** --by-model: two files for the same model and judge. */
  | { kind: 'agreement-run-twice'; model: string; judge: string; first: string; second: string }
  /** --by-model: fewer than two models or two judges. */
  | { kind: 'agreement-too-few-runs'; models: number; judges: number };

/** What agreement warns of besides reading the files, as data; worded in src/commands/words/results/warnings.ts. */
export type AgreementWarning =
  /** Judges `a` and `b` (their files) judged different predictions (gen) in `rows` of the rows they share. */
  { kind: 'judged-other-predictions'; a: string; b: string; rows: number };
