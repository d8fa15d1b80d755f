import { UserError } from '../errors.js';
import { STAGE_FIELDS, earlierStageProblem, isBlank, readLineBytes, rowStage, topLevelValues } from '../rows/index.js';

/**
 * A dataset file given to judge where predictions belong, told by its first
 * row (rowStage). Refused before anything is sent, rather than every row
 * written as "No model generation" and the run called done. A line the scan
 * cannot read is left to the row reader, which names its line and field.
 */
export async function notPredictions(file: string, awb: string): Promise<UserError | undefined> {
  // Small reads: only the first row is wanted.
  for await (const line of readLineBytes(file, { highWaterMark: 1 << 16 })) {
    if (isBlank(line.bytes)) continue;
    const fields = topLevelValues(line.bytes, STAGE_FIELDS);
    const problem =
      fields &&
      earlierStageProblem(
        file,
        rowStage((f) => fields.has(f)),
        'prediction',
        awb,
      );
    return problem === undefined ? undefined : new UserError(problem);
  }
  return undefined;
}
