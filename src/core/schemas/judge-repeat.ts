import { z } from 'zod';
import { usageSchema } from './prediction-row.js';

/*
 * One of the K rubric judgements of `--repeat K`, in a file of its own: a row judged by one judge keeps
 * them in `judge_repeats` (judge-modes.ts), a panel's member in its entry of `panel` (judged-row.ts).
 */

/**
 * Why a judgement failed, recorded by awb beside the official `error_message` (whose words are for people):
 * what resume, panels and score decide on. `no-generation` and `no-reference` rows are never sent, `unparsed`
 * (no reply parsed within --parse-attempts) is final, `request-failed` (a request that outlasted its retries)
 * is asked again.
 */
export const judgeFailureSchema = z.enum(['no-generation', 'unparsed', 'request-failed', 'no-reference']);
export type JudgeFailure = z.infer<typeof judgeFailureSchema>;

const grade = z.number().min(0).max(5);

/** One of the K rubric judgements of `--repeat K`: the official row fields of a single judgement. */
export const judgeRepeatSchema = z.object({
  format: grade,
  factuality: grade,
  consistency: grade,
  realism: grade,
  quality: grade,
  total_score: grade,
  failed: z.union([z.literal(0), z.literal(1)]),
  error_message: z.string().optional(),
  judge_failure: judgeFailureSchema.optional(),
  judge_raw_output: z.string().optional(),
  judge_attempts: z.number().int().min(0).optional(),
  judge_usage: usageSchema.optional(),
});
export type JudgeRepeat = z.infer<typeof judgeRepeatSchema>;

export const judgeRepeatsSchema = z.array(judgeRepeatSchema).min(1);
