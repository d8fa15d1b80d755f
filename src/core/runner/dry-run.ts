import type { z } from 'zod';
import { estimatePromptTokens } from '../endpoints/index.js';
import type { LinePlan } from '../rows/index.js';
import { plannedRows } from './plan.js';
import type { DatasetRow } from '../schemas/index.js';
import type { Stage } from './stage.js';

/** What a run would send: requests, estimated prompt tokens, and the completion budget (max_tokens per request). */
export interface DryRunCount {
  rows: number;
  requests: number;
  promptTokens: number;
  completionBudget: number;
  /** Rows that failed their checks: a real run stops or skips there (--on-bad-row). */
  badRows: number;
}

/**
 * A run without the run: reads every planned row as runStage reads it and
 * builds the requests the stage sends first for it (both orders of a choice
 * mode, each of --repeat's K), counting instead of sending. It writes
 * nothing; a row at a time is in memory.
 */
export async function dryRun<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, plan: LinePlan): Promise<DryRunCount> {
  const count: DryRunCount = { rows: 0, requests: 0, promptTokens: 0, completionBudget: 0, badRows: 0 };
  for await (const read of plannedRows(plan, stage.schema)) {
    if (!read.ok) {
      count.badRows++;
      continue;
    }
    count.rows++;
    for (const request of await stage.requests(read.row, read.key)) {
      count.requests++;
      count.promptTokens += await estimatePromptTokens(request.messages);
      count.completionBudget += typeof request.max_tokens === 'number' ? request.max_tokens : 0;
    }
  }
  return count;
}
