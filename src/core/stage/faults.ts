/**
 * What can go wrong in stage/ that the user can fix, as data; worded in src/commands/words/stage/stage.ts.
 * Options are named by their config field (`revision`, `memberBaseUrl`); the words give the flag.
 */
export type StageFault =
  /** infer: an option that chooses what to download, with a local --data folder. */
  | { kind: 'download-option-with-data'; option: 'revision' | 'source' }
  /** infer --horizon feeds the model its own observations, --no-history sends none. */
  | { kind: 'horizon-without-history' }
  /** judge: an option of one judge mode given with another. */
  | { kind: 'option-outside-mode'; option: 'reference' | 'repeat'; mode: 'pairwise' | 'rubric' }
  | { kind: 'pairwise-without-reference' }
  /** judge --repeat K with --seed: the K judgements of a row would be the same request, the same seed. */
  | { kind: 'seed-with-repeat' }
  /** judge: a panel's option with a single judge model. */
  | { kind: 'panel-option-without-panel'; option: 'memberBaseUrl' | 'memberApiKey' | 'panel' }
  /** judge: --member-base-url or --member-api-key names no member of the panel. */
  | { kind: 'not-a-panel-member'; member: string; models: string[] }
  /** judge: no endpoint for the judge; `unserved`: the panel's members without one (empty for a single judge). */
  | { kind: 'judge-endpoint-missing'; unserved: string[] }
  | { kind: 'no-predictions-file'; path: string }
  /** --dry-run with --on-bad-row stop met a bad row, where the run would stop. */
  | { kind: 'dry-run-bad-row'; message: string }
  /** --max-cost without what bounds a request's cost: a price, or the completion token limit. */
  | { kind: 'max-cost-unpriced'; missing: ('priceInput' | 'priceOutput' | 'maxTokens')[] }
  /** --max-cost with --batch: a batch is sent whole, so no request can be held back. */
  | { kind: 'max-cost-with-batch' };
