export { ALL_DOMAINS, TURN_BUCKETS, cacheHitRatio, costOf, hasUsage, scoreFiles, statScore } from './aggregate.js';
export type {
  MeanStat,
  Prices,
  RunReport,
  ScoreReport,
  ScoreRequest,
  StagePrices,
  StageUsage,
  TurnScore,
  UsageTotals,
} from './aggregate.js';
export { deriveSeed, groupClusters, mulberry32, percentileInterval, stratifiedIntervals } from './bootstrap.js';
export type { BootstrapSettings, ClusterPart, Interval } from './bootstrap.js';
export { GATE_ALPHA, applyGate, compareFiles, compareRecords } from './compare.js';
export type { ChangedRow, CompareReport, CompareResult, Delta, GateResult } from './compare.js';
export { labelRuns } from './comparability.js';
export type { Provenance } from './comparability.js';
export { Ratio, SIXTIETHS, formatFixed, formatSigned, meanOf, normalizedFloat, normalizedMean, rawMean } from './exact.js';
export { sampleSd, scoreModeFile, scoreRepeatRows } from './modes.js';
export type { Figure, ModeDomainScore, ModeFigure, ModeScore } from './modes.js';
export { judgeModeOf, readModeFile } from './modes-reader.js';
export { choiceFileError } from './judge-mode.js';
export type { ChoiceRecord, JudgeMode, RepeatRecord } from './modes-reader.js';
export { scoreInputs } from './inputs.js';
export { judgedRows } from './row-view.js';
export type { RowQuery, RowView } from './row-view.js';
export { readJudged } from './judged-reader.js';
export type { JudgedFile, JudgedRecord, JudgedVisitor, TokenUsage } from './judged-reader.js';
export type { ScoreFault } from './faults.js';
export { scoreWithBias, selfPreference } from './bias.js';
export type { RunBias, ScoredWithBias } from './bias.js';
export { fitLength, lengthBias, logLengthRatio } from './length-bias.js';
export type { DomainLengthBias, LengthBias, LengthPoint } from './length-bias.js';
export { modelFamily } from './model-family.js';
