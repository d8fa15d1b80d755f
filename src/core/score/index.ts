export { TURN_BUCKETS, costOf, hasUsage, scoreFiles } from './aggregate.js';
export type { MeanStat, RunReport, ScoreReport, ScoreRequest, StageUsage, UsageTotals } from './aggregate.js';
export type { BootstrapSettings, Interval } from './bootstrap.js';
export { compareFiles } from './compare.js';
export type { CompareReport, Delta } from './compare.js';
export { Ratio, formatFixed, formatSigned, normalizedMean, rawMean } from './exact.js';
export { readJudged } from './judged-reader.js';
export type { JudgedFile, JudgedRecord, TokenUsage } from './judged-reader.js';
