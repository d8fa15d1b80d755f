import { UserError } from '../errors.js';
import { isBlank, readLineBytes, topLevelValues } from '../rows/index.js';

const GEN = new Set(['gen', 'task']);

/**
 * A dataset file given to judge where predictions belong: its first row has
 * no `gen` at all (a failed inference still writes `gen: ""`). Refused before
 * anything is sent, rather than every row written as "No model generation"
 * and the run called done. A line the scan cannot read is left to the row
 * reader, which names its line and field.
 */
export async function notPredictions(file: string, awb: string): Promise<UserError | undefined> {
  // Small reads: only the first row is wanted.
  for await (const line of readLineBytes(file, { highWaterMark: 1 << 16 })) {
    if (isBlank(line.bytes)) continue;
    const fields = topLevelValues(line.bytes, GEN);
    if (!fields || fields.has('gen')) return undefined;
    // Neither field: a file of another tool (chat logs, an eval set), which "dataset rows" would misname.
    if (!fields.has('task'))
      return new UserError(
        `${file}: is not AgentWorldBench predictions (its first row has neither task nor gen); judge the predictions.jsonl that \`${awb} infer\` writes`,
      );
    return new UserError(
      `${file}: holds dataset rows (no gen), not predictions; run \`${awb} infer\` first and judge the predictions.jsonl it writes`,
    );
  }
  return undefined;
}
