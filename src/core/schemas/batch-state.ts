import { z } from 'zod';
import { settingsSchema } from './manifest.js';

/**
 * `OUTPUT.batches.json`: the batches a `--batch` run submitted, written the
 * moment each id exists, so a run killed at any point goes back to the same
 * batches instead of paying for them twice.
 */
const batchEntrySchema = z.object({
  /** The request file on disk, beside the output. */
  file: z.string(),
  lines: z.number().int().nonnegative(),
  /** Set once the file is uploaded. */
  input_file_id: z.string().optional(),
  /** Set once the batch is created. */
  id: z.string().optional(),
  status: z.string().optional(),
  output_file_id: z.string().nullable().optional(),
  error_file_id: z.string().nullable().optional(),
  /** Where its results were downloaded to; set once they are on disk. */
  results: z.string().optional(),
});

export const batchStateSchema = z.object({
  format: z.literal('agentworldbench-batches'),
  version: z.literal(1),
  /** The endpoint (shown form, no credentials) and model the requests were made for. */
  endpoint: z.string(),
  model: z.string(),
  /** The run's settings when the requests were written (as in its manifest): the replies were made with them. Absent in older states. */
  settings: settingsSchema.optional(),
  batches: z.array(batchEntrySchema),
});

export type BatchEntry = z.infer<typeof batchEntrySchema>;
export type BatchState = z.infer<typeof batchStateSchema>;

/**
 * One line of a batch's output or error file; `custom_id` matches it to its request, since the order is not kept.
 * Only a 200's body is used; a failed line is asked online, so its error (a numeric code, a text, as Batch APIs
 * other than OpenAI's write it) and a failed response without a body are taken as they come.
 */
export const batchResultLineSchema = z.object({
  custom_id: z.string(),
  response: z
    .object({
      status_code: z.number(),
      body: z.unknown().optional(),
    })
    .nullable()
    .optional(),
  error: z.unknown().optional(),
});
