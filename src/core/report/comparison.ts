import { type JudgedRecord, type ScoreRequest } from '../score/index.js';
import { compareRecords, type CompareResult } from '../compare/index.js';
import { collectReport, type CollectedReport } from './collect.js';

/** Two graded runs compared as `awb compare` compares them (paired by row, CR2 intervals over trajectories). */
export interface RunPair {
  /** Input indices of the runs. */
  baseline: number;
  candidate: number;
  result: CompareResult;
}

/** Above this many graded runs the page offers no comparison: the pairs grow as the square of the runs. */
export const MAX_COMPARED_RUNS = 8;

/**
 * The report's data and, when it has two or more graded runs (rubric or
 * --repeat files), every ordered pair of them compared, from the same pass
 * over the files: the page lets the reader pick baseline and candidate.
 */
export async function collectWithPairs(req: ScoreRequest): Promise<{ collected: CollectedReport; pairs: RunPair[] }> {
  const records = new Map<number, JudgedRecord[]>();
  const collected = await collectReport(req, (run) => {
    const mine: JudgedRecord[] = [];
    records.set(run, mine);
    return (record) => mine.push(record);
  });
  const runs = [...records.keys()].sort((a, b) => a - b);
  const pairs: RunPair[] = [];
  if (runs.length < 2 || runs.length > MAX_COMPARED_RUNS) return { collected, pairs };
  for (const baseline of runs)
    for (const candidate of runs)
      if (baseline !== candidate)
        pairs.push({ baseline, candidate, result: compareRecords(records.get(baseline)!, records.get(candidate)!) });
  return { collected, pairs };
}
