import type { JudgeFault } from './faults.js';
import { STAGE_FIELDS, isBlank, readLineBytes, rowStage, topLevelValues } from '../rows/index.js';

/** rowStage's fields, and `task`: a row with neither `task` nor `gen` is not from this benchmark at all. */
const FIELDS: ReadonlySet<string> = new Set([...STAGE_FIELDS, 'task']);

/**
 * A dataset file given to judge where predictions belong, told by its first
 * row (rowStage). Refused before anything is sent, rather than every row
 * written as "No model generation" and the run called done. A line the scan
 * cannot read is left to the row reader, which names its line and field.
 */
export async function notPredictions(file: string): Promise<JudgeFault | undefined> {
  // Small reads: only the first row is wanted.
  for await (const line of readLineBytes(file, { highWaterMark: 1 << 16 })) {
    if (isBlank(line.bytes)) continue;
    const fields = topLevelValues(line.bytes, FIELDS);
    if (!fields) return undefined;
    // Neither field: a file of another tool (chat logs, an eval set), which "dataset rows" would misname.
    if (!fields.has('task') && !fields.has('gen')) return { kind: 'predictions-not-benchmark', file };
    return rowStage((f) => fields.has(f)) === 'dataset' ? { kind: 'predictions-are-dataset', file } : undefined;
  }
  return undefined;
}
