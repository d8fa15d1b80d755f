import { type JudgedRecord, type ScoreRequest } from '../score/index.js';
import { compareRecords, type CompareResult } from '../compare/index.js';
import { collectReport, type CollectedReport } from './collect.js';
import { panelAgreements, type PanelAgreement } from './panels.js';

/** Two graded runs compared as `awb compare` compares them (paired by row, CR2 intervals over trajectories). */
export interface RunPair {
  /** Input indices of the runs. */
  baseline: number;
  candidate: number;
  result: CompareResult;
}

/** Above this many graded runs the page offers no comparison: the pairs grow as the square of the runs. */
export const MAX_COMPARED_RUNS = 8;

export interface CollectedWithPairs {
  collected: CollectedReport;
  pairs: RunPair[];
  /** Per file judged by a panel, how far its members agree. */
  panels: PanelAgreement[];
}

/**
 * The report's data and, when it has two or more graded runs (rubric or
 * --repeat files), every ordered pair of them compared, from the same pass
 * over the files: the page lets the reader pick baseline and candidate.
 */
export async function collectWithPairs(req: ScoreRequest): Promise<CollectedWithPairs> {
  const records = new Map<number, JudgedRecord[]>();
  const members = panelAgreements(req.files);
  const collected = await collectReport(req, (run) => {
    const mine: JudgedRecord[] = [];
    records.set(run, mine);
    const panel = members.visit(run);
    return (record, line) => {
      mine.push(record);
      panel(record, line);
    };
  });
  const panels = members.agreements();
  const runs = [...records.keys()].sort((a, b) => a - b);
  const pairs: RunPair[] = [];
  if (runs.length < 2 || runs.length > MAX_COMPARED_RUNS) return { collected, pairs, panels };
  for (const baseline of runs)
    for (const candidate of runs)
      if (baseline !== candidate)
        pairs.push({ baseline, candidate, result: compareRecords(records.get(baseline)!, records.get(candidate)!) });
  return { collected, pairs, panels };
}
