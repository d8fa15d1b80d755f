import { z } from 'zod';
import { datasetRowSchema } from './dataset-row.js';

/** A token count: a whole number from 0 up to 2^53 - 1, so sums and prices stay exact and finite. */
export const tokenCount = z.int().nonnegative();

export const usageSchema = z
  .object({
    prompt_tokens: tokenCount.optional(),
    completion_tokens: tokenCount.optional(),
    total_tokens: tokenCount.optional(),
    reasoning_tokens: tokenCount.optional(),
    /** Prompt tokens the endpoint served from its prefix cache (usage.prompt_tokens_details.cached_tokens); absent when it does not say. */
    cached_tokens: tokenCount.optional(),
    // A raw OpenAI-style usage (the official script's files, other tools'): score reads its cached and reasoning tokens from these.
    prompt_tokens_details: z.object({ cached_tokens: tokenCount.nullish() }).loose().nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: tokenCount.nullish() }).loose().nullish(),
  })
  .loose();
export type Usage = z.infer<typeof usageSchema>;

/**
 * The usage with only its valid token counts: what a server reports is not
 * trusted to be one. Cached tokens are part of the prompt, so more of them
 * than the prompt has is no count either (it would make a hit ratio over 100%).
 */
export function checkedUsage(usage: Usage): Usage {
  const valid: Usage = Object.fromEntries(Object.entries(usage).filter(([, v]) => tokenCount.safeParse(v).success));
  if (valid.cached_tokens !== undefined && valid.prompt_tokens !== undefined && valid.cached_tokens > valid.prompt_tokens) {
    delete valid.cached_tokens;
  }
  return valid;
}

/** A free-running horizon: a whole number ≥ 1, or 'all' (every earlier turn). */
export const horizonSchema = z.union([z.int().min(1), z.literal('all')]);

/** How many earlier observations are the model's own: 0 is teacher-forced; 'all': every earlier turn. */
export type Horizon = number | 'all';

/** One generated observation of a row's rollout. */
export const rolloutStepSchema = z.object({
  turn: z.int().positive(),
  gen: z.string(),
  finish_reason: z.string().nullish(),
  usage: usageSchema.nullish(),
  /** Generated for another row of the trajectory (--horizon all, or rows with the same anchor): not paid by this row. */
  shared: z.literal(true).optional(),
});

/** How a request went, as infer records it and the judge does under `judge_` (requestTiming). */
const REQUEST_TIMING = {
  latency_ms: z.number().optional(),
  /**
   * Streamed requests: ms to the first content or reasoning token, and completion tokens per second from it to the
   * last (absent when the tokens came in one burst, as behind a proxy that buffers events: no decoding was measured).
   */
  ttft_ms: z.number().optional(),
  decode_tokens_per_s: z.number().optional(),
};
type Prefixed<P extends string, S> = { [K in keyof S & string as `${P}${K}`]: S[K] };

/** The request's timing fields under `prefix`: '' for infer's, 'judge_' for the judge's. */
export function requestTiming<P extends string>(prefix: P): Prefixed<P, typeof REQUEST_TIMING> {
  return Object.fromEntries(Object.entries(REQUEST_TIMING).map(([k, schema]) => [prefix + k, schema])) as Prefixed<
    P,
    typeof REQUEST_TIMING
  >;
}

/**
 * A line of predictions.jsonl: the dataset row unchanged plus `gen` (the
 * official field) and what awb records about the request. A row whose
 * request failed has `gen: ""` and `error`, as the official script writes
 * an empty `gen` on failure.
 */
export const predictionFieldsSchema = z.object({
  // null reads as a failed request's "", but no gen at all is no predictions row (a dataset file given to judge).
  gen: z
    .string()
    .nullable()
    .transform((g) => g ?? ''),
  gen_reasoning: z.string().optional(),
  /** The model declined (OpenAI's `refusal`, sent with no content): its words, else lost in an empty `gen`. */
  gen_refusal: z.string().optional(),
  finish_reason: z.string().nullish(),
  usage: usageSchema.nullish(),
  /** Set when the Batch API answered (--batch): the usage score prices at the batch discount. */
  batch_usage: usageSchema.optional(),
  ...requestTiming(''),
  endpoint: z.string().optional(),
  error: z.string().optional(),
  /** Free-running rows (infer --horizon H): how many earlier observations are the model's own ('all': every one); absent: teacher-forced. */
  horizon: horizonSchema.optional(),
  /** The observations the model generated for the earlier turns, in turn order, each from the real action of its turn. */
  rollout: z.array(rolloutStepSchema).optional(),
  /** Usage of the rollout's steps this row sent (not those it shared with another row of its trajectory). */
  rollout_usage: usageSchema.nullish(),
});

export const predictionRowSchema = datasetRowSchema.extend(predictionFieldsSchema.shape);
export type PredictionRow = z.infer<typeof predictionRowSchema>;

/** The fields infer appends to a dataset row, as infer writes them. */
export type PredictionFields = z.input<typeof predictionFieldsSchema>;

/** A row's prediction as judges read it, from its top-level values (`null` is a failed request's ""); undefined for a gen missing or not text. */
export function predictionText(value: (field: string) => unknown): string | undefined {
  const gen = value('gen');
  return typeof gen === 'string' ? gen : gen === null ? '' : undefined;
}

/** What an output row says about its input row: a final result (`done`), a final failure, or none yet (redone on resume). */
export type Outcome = 'done' | 'failed' | 'incomplete';

/**
 * A prediction is final when its request succeeded; empty content is the
 * model's answer, final too, and a failure that --retry-failed asks again.
 */
export function inferOutcome(row: Record<string, unknown>): Outcome {
  if (typeof row.gen !== 'string' || row.error !== undefined) return 'incomplete';
  return row.gen === '' ? 'failed' : 'done';
}
