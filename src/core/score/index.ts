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
export type { BootstrapSettings, Interval } from './bootstrap.js';
export { GATE_ALPHA, applyGate, compareFiles, compareRecords } from './compare.js';
export type { ChangedRow, CompareReport, CompareResult, Delta, GateResult } from './compare.js';
export type { Provenance } from './comparability.js';
export { Ratio, SIXTIETHS, formatFixed, formatSigned, normalizedMean, rawMean } from './exact.js';
export { sampleSd, scoreModeFile, scoreRepeatRows } from './modes.js';
export type { Figure, ModeDomainScore, ModeFigure, ModeScore } from './modes.js';
export { judgeModeOf, readModeFile } from './modes-reader.js';
export { MODE_FIELD } from './judge-mode.js';
export type { ChoiceRecord, JudgeMode, RepeatRecord } from './modes-reader.js';
export { scoreInputs } from './inputs.js';
export { judgedRows } from './row-view.js';
export type { RowQuery, RowView } from './row-view.js';
export { readJudged } from './judged-reader.js';
export type { JudgedFile, JudgedRecord, TokenUsage } from './judged-reader.js';
export type { At, ScoreFault } from './faults.js';
