import { z } from 'zod';
import { usageSchema } from './prediction-row.js';

export const DIMENSIONS = ['format', 'factuality', 'consistency', 'realism', 'quality'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const score = z
  .number()
  .nullish()
  .transform((v) => v ?? 0);

/**
 * What score needs from a judged line. Official judged.jsonl files are valid
 * input: a failed row may carry only `failed` and `error_message`.
 */
export const judgedScoreSchema = z
  .object({
    task: z.string().min(1),
    id: z.union([z.number(), z.string()]),
    turn_idx: z.number().int().min(1),
    total_turns: z.number().int().optional(),
    total_score: score,
    format: score,
    factuality: score,
    consistency: score,
    realism: score,
    quality: score,
    failed: z
      .union([z.number(), z.boolean()])
      .nullish()
      .transform((v) => (v === undefined || v === null ? 1 : Number(v))),
    usage: usageSchema.nullish(),
    judge_usage: usageSchema.nullish(),
  })
  .loose();
export type JudgedScore = z.infer<typeof judgedScoreSchema>;

/** The fields judge appends to a prediction row (names of the official judged.jsonl, then awb's). */
export const judgeFieldsSchema = z.object({
  total_score: z.number(),
  format: z.number().optional(),
  factuality: z.number().optional(),
  consistency: z.number().optional(),
  realism: z.number().optional(),
  quality: z.number().optional(),
  failed: z.number(),
  strengths: z.array(z.unknown()).optional(),
  weaknesses: z.array(z.unknown()).optional(),
  extracted_output: z.string().optional(),
  judge_raw_output: z.string().optional(),
  error_message: z.string().optional(),
  judge_usage: usageSchema.optional(),
  judge_latency_ms: z.number().optional(),
  judge_attempts: z.number().optional(),
  judge_endpoint: z.string().optional(),
});
export type JudgeFields = z.infer<typeof judgeFieldsSchema>;
