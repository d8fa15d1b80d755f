import type { LinePlan, PlannedLine } from '../rows/index.js';

/**
 * The order rows are sent in. The runner reads each planned line when its
 * turn comes, so any order costs the same: a scheduler (e.g. one that groups
 * the turns of a trajectory for prefix caches) is a function of this type.
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
