import type { z } from 'zod';
import type { DatasetRow, Manifest, Outcome } from '../schemas/index.js';
import type { DomainTally } from './accounting.js';

/**
 * The work for one row, built while the row is in hand: it holds only what
 * the request needs. Resolves to the fields to append, or undefined when
 * cancelled; throws only for errors that end the run.
 */
export type Job = (signal: AbortSignal) => Promise<Record<string, unknown> | undefined>;

/** What a stage (infer, judge) gives the runner; everything else (plan, slots, output, manifest) is the runner's. */
export interface Stage<S extends z.ZodType<DatasetRow> = z.ZodType<DatasetRow>> {
  name: Manifest['stage'];
  /** The input rows' schema; output rows are input rows with `outputFields` added. */
  schema: S;
  /** The fields this stage appends; an input that has some already (re-judging a judged file) gets them replaced. */
  outputFields: readonly string[];
  outcome(row: Record<string, unknown>): Outcome;
  /** Adds an output row's stage-specific figures (empty, truncated, usage) to its domain's tally. */
  tally(row: Record<string, unknown>, t: DomainTally): void;
  /** `key`: the row's key (rowKey), for stages that pair rows with another file. */
  job(row: z.infer<S>, key: string): Job;
  /** The request the job sends first for this row, or undefined when it sends none: what a dry run counts. */
  request?(row: z.infer<S>): PlannedRequest | undefined;
}

/** A chat request as a dry run sees it: its messages and its completion budget. */
export interface PlannedRequest {
  messages: { content: string }[];
  max_tokens?: number;
}
