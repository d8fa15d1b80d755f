export { compareRecords } from './compare.js';
export type { ChangedRow, CompareResult, Delta } from './compare.js';
export { GATE_ALPHA, OVERALL, applyGate } from './gate.js';
export type { GateOutcome, GateReason, GateResult, GateTest, Incomplete, Untested } from './gate.js';
export { compareFiles } from './compare-files.js';
export type { CompareReport } from './compare-files.js';
export type { CompareFault, CompareNotice, CompareWarning } from './faults.js';
