import { DIMENSIONS } from '../schemas/index.js';

/** Which stage a row comes from: the dataset (no `gen`), infer (`gen`, no judge result) or judge. */
export type RowStage = 'dataset' | 'prediction' | 'judged';

/** The fields any judge writes (ours, or the official script's, whose empty-generation rows carry only `failed`). */
const JUDGE_RESULTS = ['failed', 'total_score', ...DIMENSIONS] as const;

/** The top-level fields rowStage looks at, for a reader that finds only the fields it names. */
export const STAGE_FIELDS: ReadonlySet<string> = new Set(['gen', ...JUDGE_RESULTS]);

/** A row's stage from which fields it has (a failed inference still writes `gen: ""`). */
export function rowStage(has: (field: string) => boolean): RowStage {
  if (JUDGE_RESULTS.some(has)) return 'judged';
  return has('gen') ? 'prediction' : 'dataset';
}

/**
 * A file of an earlier stage than the one a command reads (told by its first
 * row): what it is and what to run next; undefined when it is of that stage
 * or a later one.
 */
export function earlierStageProblem(file: string, stage: RowStage, wanted: 'prediction' | 'judged', awb: string): string | undefined {
  if (stage === 'dataset') {
    const next = wanted === 'prediction' ? '' : ` with \`${awb} judge\`, and use the judged.jsonl that writes`;
    return `${file}: holds dataset rows (no gen), not ${wanted === 'prediction' ? 'predictions' : 'judged rows'}; run \`${awb} infer\` first, then judge the predictions.jsonl it writes${next}`;
  }
  if (stage === 'prediction' && wanted === 'judged') {
    return `${file}: is a predictions file (its rows have gen but no judge results), not a judged one; judge it first with \`${awb} judge --predictions ${file} --judge-base-url URL --judge-model MODEL\`, then use the judged.jsonl it writes`;
  }
  return undefined;
}
