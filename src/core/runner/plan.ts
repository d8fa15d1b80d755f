import type { LinePlan, PlannedLine } from '../rows/index.js';

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
