import type { z } from 'zod';
import { estimatePromptTokens } from '../endpoints/index.js';
import type { BadRow, LinePlan } from '../rows/index.js';
import { plannedRows, RowsSeen } from './plan.js';
import type { DatasetRow } from '../schemas/index.js';
import type { Stage } from './stage.js';

/** What a run would send: requests, estimated prompt tokens, and the completion budget (max_tokens per request). */
export interface DryRunCount {
  rows: number;
  requests: number;
  promptTokens: number;
  completionBudget: number;
  /** Rows that failed their checks, or repeat a row above them: a real run stops or skips there (--on-bad-row). */
  badRows: number;
  /** The first of them in the files, where a run with `--on-bad-row stop` stops. */
  firstBad?: BadRow;
}

/**
 * A run without the run: reads every planned row as runStage reads it and
 * builds the requests the stage sends first for it (both orders of a choice
 * mode, each of --repeat's K), counting instead of sending. It writes
 * nothing; a row at a time is in memory.
 */
export async function dryRun<S extends z.ZodType<DatasetRow>>(
  stage: Stage<S>,
  plan: LinePlan,
  onBad: (bad: BadRow) => void = () => undefined,
): Promise<DryRunCount> {
  const count: DryRunCount = { rows: 0, requests: 0, promptTokens: 0, completionBudget: 0, badRows: 0 };
  const bad = (b: BadRow) => {
    count.badRows++;
    count.firstBad ??= b;
    onBad(b);
  };
  // The run refuses a row it has already read (same key) just as it refuses a malformed one.
  const seen = new RowsSeen();
  for await (const { read, file, lineNo } of plannedRows(plan, stage.schema)) {
    if (!read.ok) {
      bad(read.bad);
      continue;
    }
    const repeat = seen.repeat(read.key, file, lineNo);
    if (repeat) {
      bad(repeat);
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
