import { UserError } from '../errors.js';
import { open } from 'node:fs/promises';
import type { z } from 'zod';
import { estimatePromptTokens } from '../endpoints/index.js';
import { readLineAt, readRow, type LinePlan } from '../rows/index.js';
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
 * builds the stage's first request for it, counting instead of sending. It
 * writes nothing; a row at a time is in memory.
 */
export async function dryRun<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, plan: LinePlan): Promise<DryRunCount> {
  const count: DryRunCount = { rows: 0, requests: 0, promptTokens: 0, completionBudget: 0, badRows: 0 };
  const ask = stage.request?.bind(stage);
  if (!ask) throw new UserError(`--dry-run is not available for this ${stage.name} mode yet (it counts infer and the rubric judge)`);
  const inputs = await Promise.all(plan.files.map(async (path) => ({ path, handle: await open(path, 'r') })));
  try {
    for (const line of plan.lines) {
      const input = inputs[line.file]!;
      const bytes = await readLineAt(input, line.start, line.length);
      const read = readRow(bytes, stage.schema, { file: input.path, lineNo: line.lineNo, terminated: line.terminated });
      if (!read.ok) {
        count.badRows++;
        continue;
      }
      count.rows++;
      const request = ask(read.row);
      if (!request) continue;
      count.requests++;
      count.promptTokens += estimatePromptTokens(request.messages);
      count.completionBudget += request.max_tokens ?? 0;
    }
  } finally {
    await Promise.all(inputs.map((i) => i.handle.close()));
  }
  return count;
}
