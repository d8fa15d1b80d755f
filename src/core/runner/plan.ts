import { open } from 'node:fs/promises';
import type { z } from 'zod';
import { readLineAt, readRow, type LinePlan, type PlannedLine, type ReadRow } from '../rows/index.js';
import type { DatasetRow } from '../schemas/index.js';
import type { ScheduleRow } from './schedule.js';

/**
 * The order of the plan's lines as the schedule (schedule.ts) sees it: it
 * breaks ties between rows the schedule ranks alike. The runner reads each
 * line when it is sent, so any order costs the same.
 */
export type Order = (lines: readonly PlannedLine[]) => PlannedLine[];

/** The rows in file order: the default. */
export const fileOrder: Order = (lines) => [...lines];

/** The plan's lines in the order they are to be sent; an order must keep every line exactly once. */
export function orderedLines(plan: LinePlan, order: Order = fileOrder): PlannedLine[] {
  const out = order(plan.lines);
  if (out.length !== plan.lines.length || new Set(out).size !== out.length) throw new Error('an order must keep every planned line once');
  return out;
}

/** The plan's lines as the schedule's rows (schedule.ts), each carrying its line; `order` only decides ties. */
export function scheduleRows(plan: LinePlan, order?: Order): (ScheduleRow & { line: PlannedLine })[] {
  return orderedLines(plan, order).map((line, index) => ({
    index,
    domain: line.domain,
    id: line.id,
    turn: line.turn,
    bytes: line.length,
    prefix: line.prefix,
    line,
  }));
}

/** Every planned row in file order, read and checked as the runner reads it, one at a time (dry run, batch phase). */
export async function* plannedRows<S extends z.ZodType<DatasetRow>>(plan: LinePlan, schema: S): AsyncGenerator<ReadRow<z.infer<S>>> {
  const inputs = await Promise.all(plan.files.map(async (path) => ({ path, handle: await open(path, 'r') })));
  try {
    for (const line of plan.lines) {
      const input = inputs[line.file]!;
      const bytes = await readLineAt(input, line.start, line.length);
      yield readRow(bytes, schema, { file: input.path, lineNo: line.lineNo, terminated: line.terminated });
    }
  } finally {
    await Promise.all(inputs.map((i) => i.handle.close()));
  }
}
