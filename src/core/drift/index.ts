export { OVERALL, curvesOf, driftFiles, driftOfRuns, horizonOrder } from './drift.js';
export type { DriftCurve, DriftOptions, DriftPoint, DriftReport, DriftRun } from './drift.js';
export type { DriftFault, DriftNotice } from './faults.js';
