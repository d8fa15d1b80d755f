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

/** A setting compared one value per run (comparabilityNotes); hashes and commits among them. */
export type CheckedSetting = 'judge' | 'rubrics-set' | 'history' | 'horizon' | 'dataset-commit' | 'dataset-hashes' | 'dataset-revision';

/** The runs (by label) that share one value of a setting; `value` undefined: unknown in them. */
export interface ValueRuns {
  value?: string;
  runs: string[];
}

/**
 * What keeps a run from being compared with the published numbers (publishedGaps): each as data, worded in
 * src/commands/words/results/notes.ts. `published` fields carry what the published numbers used.
 */
export type PublishedGap =
  | { kind: 'no-manifest' }
  | { kind: 'mixed-settings' }
  /** Not the official rubrics: `source` 'bundled', the folder they came from, or undefined (unknown). */
  | { kind: 'rubrics'; source?: string; layout?: 'awb' | 'official' }
  /** Not the whole published split: `had` of `published` rows; `short`: the domains with another count (empty: domains beyond it). */
  | { kind: 'rows'; had: number; published: number; short: string[] }
  /** `repo`: another dataset repository; undefined: the dataset's commit is unknown. */
  | { kind: 'dataset-source'; repo?: string }
  | { kind: 'judge'; judge?: string; published: string }
  | { kind: 'judge-sampling'; temperature?: number; maxTokens?: number; published: { temperature: number; maxTokens: number } }
  | { kind: 'history'; history?: string }
  | { kind: 'horizon'; horizon: string }
  /** publish only: the manifest says not every row is done. */
  | { kind: 'unfinished' };

/** One forced resume that mixed runs into a file: into its judgements (`judge`) or its predictions (`infer`); `reason`: the manifest's. */
export interface MixedResume {
  stage: 'judge' | 'infer';
  reason: string;
}

/**
 * Why numbers side by side may not be comparable (comparabilityNotes), as data; runs are named by their labels.
 * Differences of the world model are the point of a comparison and are never noted.
 */
export type ComparabilityNote =
  | { kind: 'run-incomplete'; run: string }
  /** A file a forced resume mixed; `mixed`: what differed each time (Provenance.mixed); `file` when it is not the label. */
  | { kind: 'run-mixes-settings'; run: string; file?: string; mixed: MixedResume[] }
  | { kind: 'provenance-unknown'; runs: string[] }
  | { kind: 'setting-differs'; setting: CheckedSetting; values: ValueRuns[] }
  | { kind: 'setting-unknown'; setting: CheckedSetting; runs: string[] }
  /** Per domain the runs share, each rubric hash and its runs. */
  | { kind: 'rubrics-differ'; domains: Array<{ domain: string; values: Array<{ hash: string; runs: string[] }> }> }
  /** Runs whose manifests hash only the whole rubric set (made before per-domain hashes). */
  | { kind: 'rubrics-per-domain-unknown'; runs: string[] }
  /** Overall averages different domain sets: each set (in order of first run) and its runs. */
  | { kind: 'domains-differ'; sets: Array<{ domains: string[]; runs: string[] }> }
  | { kind: 'published-incomparable'; run: string; gaps: PublishedGap[] };

/** What score notes besides comparability: each said under the leaderboard. */
export type ScoreNotice =
  | ComparabilityNote
  /** Domains of a run with no score: its Overall leaves them out. `totals`: some have valid rows, none with a total_score. */
  | { kind: 'overall-partial'; run: string; unscored: string[]; totals: boolean; macroDomains: number; domains: number }
  /** Domains none of the seven (a typo in a hand-made `task`), scored and averaged into Overall. */
  | { kind: 'domains-unknown'; domains: string[] }
  /** A panel's --repeat file scored without --by-judge: its members judged each row `repeats` times. */
  | { kind: 'member-repeats'; run: string; repeats: number };

/**
 * What reading judged files and their manifests warns of without stopping (a cut last line, a manifest that cannot be
 * used), as data; worded in src/commands/words/results/warnings.ts. `path` names a manifest, `file` a judged file.
 */
export type ScoreWarning =
  /** The last line has no newline and is not JSON (an interrupted run): skipped. */
  | ({ kind: 'judged-line-cut' } & At)
  /** A manifest that cannot be used: its run's provenance counts as unknown. */
  | { kind: 'manifest-not-json'; path: string }
  /** `field`: the path of the field refused ('' for the whole manifest); `problem`: the schema's words. */
  | { kind: 'manifest-invalid'; path: string; field: string; problem: string }
  /** `reason`: the system's code or words. */
  | { kind: 'manifest-unreadable'; path: string; reason: string }
  /** The manifest beside a judged file is of a predictions file: judge and rubrics are unknown. */
  | { kind: 'manifest-of-predictions'; path: string }
  /** The predictions manifest a judged manifest carries (`upstream`) is refused: `field` and `problem` as for manifest-invalid, absent when the schema said nothing. */
  | { kind: 'manifest-upstream-invalid'; path: string; field?: string; problem?: string }
  /** A file given twice, under any name (`earlier`: its first name): its run is shown twice. */
  | { kind: 'file-given-twice'; file: string; earlier: string }
  /** --price-… given for a choice file: score counts no tokens of its mode (its judge's are in `manifest`). */
  | { kind: 'choice-file-unpriced'; file: string; mode: ChoiceMode; manifest: string }
  /** --by-judge for a choice file of one judge: its figures are shown alone. */
  | { kind: 'choice-file-no-panel'; file: string; mode: ChoiceMode };
