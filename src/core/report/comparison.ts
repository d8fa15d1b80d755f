import type { JudgedRecord, ScoreRequest } from '../score/index.js';
import { compareRecords, type CompareResult } from '../compare/index.js';
import { driftOfRuns, horizonOrder, type DriftCurve } from '../drift/index.js';
import type { Horizon } from '../schemas/index.js';
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
  /** When the graded runs are one teacher-forced run and free-running ones, a horizon each: their drift curves (`awb drift`). */
  drift?: ReportDrift;
}

export interface ReportDrift {
  /** Input indices of the runs, in horizon order (teacher-forced first), and their horizons. */
  runs: number[];
  horizons: Horizon[];
  curves: DriftCurve[];
  /** Rows valid in every run: what the curves average. */
  rows: number;
  /** Whether the curves carry bootstrap intervals (not with --no-ci): without them no drop is significant. */
  intervals: boolean;
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
  const drift = driftOf(records, req);
  const pairs: RunPair[] = [];
  if (runs.length < 2 || runs.length > MAX_COMPARED_RUNS) return { collected, pairs, panels, ...(drift ? { drift } : {}) };
  for (const baseline of runs)
    for (const candidate of runs)
      if (baseline !== candidate)
        pairs.push({ baseline, candidate, result: compareRecords(records.get(baseline)!, records.get(candidate)!) });
  return { collected, pairs, panels, ...(drift ? { drift } : {}) };
}

/** The drift curves of the graded runs when they are a teacher-forced run and free-running ones, one per horizon. */
function driftOf(records: ReadonlyMap<number, readonly JudgedRecord[]>, req: ScoreRequest): ReportDrift | undefined {
  const runs = [...records].map(([run, recs]) => ({ run, records: recs, horizons: new Set(recs.map((r) => r.horizon ?? 0)) }));
  if (runs.length < 2 || runs.some((r) => r.horizons.size !== 1)) return undefined;
  const horizon = (r: (typeof runs)[number]) => [...r.horizons][0]!;
  runs.sort((a, b) => horizonOrder(horizon(a), horizon(b)));
  const horizons = runs.map(horizon);
  if (horizons[0] !== 0 || new Set(horizons).size !== horizons.length) return undefined;
  const { curves, rows } = driftOfRuns(
    runs.map((r) => ({ horizon: horizon(r), records: r.records })),
    req.bootstrap,
  );
  return rows ? { runs: runs.map((r) => r.run), horizons, curves, rows, intervals: req.bootstrap !== undefined } : undefined;
}
