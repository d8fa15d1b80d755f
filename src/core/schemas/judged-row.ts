import { z } from 'zod';
import { predictionRowSchema, usageSchema } from './prediction-row.js';

export const DIMENSIONS = ['format', 'factuality', 'consistency', 'realism', 'quality'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const score = z.number().nullish().transform((v) => v ?? 0);

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
    failed: z.union([z.number(), z.boolean()]).nullish().transform((v) => (v === undefined || v === null ? 1 : Number(v))),
    usage: usageSchema.nullish(),
    judge_usage: usageSchema.nullish(),
  })
  .loose();
export type JudgedScore = z.infer<typeof judgedScoreSchema>;

/** The fields judge appends to a prediction row (names of the official judged.jsonl, then awb's). */
export interface JudgeFields {
  total_score: number;
  format?: number;
  factuality?: number;
  consistency?: number;
  realism?: number;
  quality?: number;
  failed: number;
  strengths?: unknown[];
  weaknesses?: unknown[];
  extracted_output?: string;
  judge_raw_output?: string;
  error_message?: string;
  judge_usage?: z.infer<typeof usageSchema>;
  judge_latency_ms?: number;
  judge_attempts?: number;
  judge_endpoint?: string;
}

export const judgedRowSchema = predictionRowSchema.extend({
  total_score: z.number().optional(),
  failed: z.number().optional(),
  error_message: z.string().optional(),
});
export type JudgedRow = z.infer<typeof judgedRowSchema>;
