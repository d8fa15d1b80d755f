import { z } from 'zod';
import { taskSchema } from './dataset-row.js';
import { predictionRowSchema, requestTiming, usageSchema, type Outcome } from './prediction-row.js';
import { judgeFailureSchema, judgeRepeatsSchema, type JudgeFailure } from './judge-repeat.js';

export const DIMENSIONS = ['format', 'factuality', 'consistency', 'realism', 'quality'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The five grades, by name (`grade`: the schema of one). */
const grades = <G extends z.ZodType>(grade: G) => Object.fromEntries(DIMENSIONS.map((d) => [d, grade])) as Record<Dimension, G>;

const score = z
  .number()
  .nullish()
  .transform((v) => v ?? 0);

/**
 * A row's `failed`: 0 (graded) or 1 (failed), as a number (the official
 * script writes 1.0) or a boolean; read as 0 or 1. Anything else (0.5, 2,
 * "no") is refused at the boundary: counting it either way would be a guess.
 */
export const failedFlag = z
  .union([z.literal(0), z.literal(1), z.boolean()], {
    error: (issue) =>
      issue.input === undefined
        ? 'is missing; a judged row says whether its judgement failed (0: graded, 1: failed), and the official script counts a row without it as failed'
        : `must be 0 (graded) or 1 (failed), or false or true; got ${shownValue(issue.input)}`,
  })
  .transform(Number);

/** A value as a one-line error shows it: JSON, cut short. */
function shownValue(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * What score needs from a judged line. Official judged.jsonl files are valid
 * input: a failed row may carry only `failed` and `error_message`.
 */
export const judgedScoreSchema = z
  .object({
    task: taskSchema,
    id: z.union([z.number(), z.string()]),
    turn_idx: z.number().int().min(1),
    total_turns: z.number().int().optional(),
    total_score: score,
    ...grades(score),
    /*
     * Required: every judge writes it (ours, and the official script, empty
     * generations included). The official script counts a row without it as
     * failed, grades or not; refused here rather than guessed either way.
     */
    failed: failedFlag,
    usage: usageSchema.nullish(),
    judge_usage: usageSchema.nullish(),
    batch_usage: usageSchema.nullish(),
    judge_batch_usage: usageSchema.nullish(),
  })
  .loose();

/** A judged line as merge checks it: a predictions row whose `failed` is a flag (only judgeOutcome reads the rest). */
export const judgedRowSchema = predictionRowSchema.extend({ failed: failedFlag });

/** What one judge's judgement of a row records: the row's own fields, and each panel member's entry. */
const JUDGEMENT = {
  total_score: z.number(),
  failed: failedFlag,
  error_message: z.string().optional(),
  judge_failure: judgeFailureSchema.optional(),
  judge_raw_output: z.string().optional(),
  judge_attempts: z.number().optional(),
  judge_usage: usageSchema.optional(),
  /** The part of judge_usage the Batch API answered (--batch): score prices it at the batch discount. */
  judge_batch_usage: usageSchema.optional(),
  judge_endpoint: z.string().optional(),
};

/**
 * One member's judgement of a row judged by a panel (`--judge-model a,b,c`), kept in the row's
 * `panel` in the members' order; the row's official fields hold the panel's grades (panelFields).
 */
export const panelEntrySchema = z.object({
  /** The member's model name, as given to --judge-model. */
  judge: z.string(),
  scores: z.object(grades(z.number())),
  ...JUDGEMENT,
  /** --repeat K: the member's K judgements; its `scores` and `total_score` then hold their combination (combineRepeats). */
  judge_repeats: judgeRepeatsSchema.optional(),
});
export type PanelEntry = z.infer<typeof panelEntrySchema>;

/** The fields judge appends to a prediction row (names of the official judged.jsonl, then awb's). */
export const judgeFieldsSchema = z.object({
  ...JUDGEMENT,
  ...grades(z.number().optional()),
  strengths: z.array(z.unknown()).optional(),
  weaknesses: z.array(z.unknown()).optional(),
  extracted_output: z.string().optional(),
  ...requestTiming('judge_'),
  /** A panel's row: every member's judgement (panelEntrySchema). */
  panel: z.array(panelEntrySchema).optional(),
});
export type JudgeFields = z.infer<typeof judgeFieldsSchema>;

/** The official script's message for a row without a generation; such rows are final, not retried. */
export const NO_GENERATION = 'No model generation';

/** error_message of a pairwise row whose key is missing from the reference file: final, never sent. */
export const NO_REFERENCE = 'No reference row';

/** The failure a failed row records, read from its `judge_failure`; undefined for a row without one (the official script's, or an earlier awb's). */
export function judgeFailureOf(row: Record<string, unknown>): JudgeFailure | undefined {
  const f = judgeFailureSchema.safeParse(row.judge_failure);
  return Number(row.failed) !== 0 && f.success ? f.data : undefined;
}

/**
 * The outcome of a judged row in any mode (rubric, choice, a panel): a graded row is done. A row without a
 * generation, or whose judge replies could not be parsed, or missing from the pairwise reference, is a final
 * failure, as the official script records it, except when its inference failed (awb's `error`): that row is
 * redone once infer has filled it in. A request that outlasted its retries is incomplete, and so is a failed
 * row that does not say why (asked again: a row without a generation costs no request).
 */
export function judgedOutcome(row: Record<string, unknown>): Outcome {
  if (Number(row.failed) === 0) return 'done';
  switch (judgeFailureOf(row)) {
    case 'no-generation':
      return row.error === undefined ? 'failed' : 'incomplete';
    case 'unparsed':
    case 'no-reference':
      return 'failed';
    default:
      return 'incomplete';
  }
}
