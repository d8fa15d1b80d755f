export { collectReport } from './collect.js';
export type { CollectedReport, ReportRow, RolloutView } from './collect.js';
export { MAX_TEXT, MIN_TEXT, TEXT_BUDGET, cut, fitLimit } from './cut.js';
export type { Kept } from './cut.js';
export { rowRef } from './row-ref.js';
export { MAX_COMPARED_RUNS, collectWithPairs } from './comparison.js';
export type { CollectedWithPairs, ReportDrift, RunPair } from './comparison.js';
export type { PanelAgreement } from './panels.js';
