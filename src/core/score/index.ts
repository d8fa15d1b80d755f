export { ALL_DOMAINS, TURN_BUCKETS, costOf, hasUsage, scoreFiles } from './aggregate.js';
export type { MeanStat, Prices, RunReport, ScoreReport, StagePrices, StageUsage, TurnScore, UsageTotals } from './aggregate.js';
export type { BootstrapSettings, Interval } from './bootstrap.js';
export { GATE_ALPHA, applyGate, compareFiles, compareRecords } from './compare.js';
export type { ChangedRow, CompareReport, CompareResult, Delta, GateResult } from './compare.js';
export { Ratio, formatFixed, formatSigned, normalizedMean, rawMean } from './exact.js';
export { judgedRows } from './row-view.js';
export type { RowQuery, RowView } from './row-view.js';
