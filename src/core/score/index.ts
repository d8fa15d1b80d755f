export { ALL_DOMAINS, TURN_BUCKETS, statScore } from './aggregate.js';
export type { MeanStat, TurnScore } from './aggregate.js';
export { cacheHitRatio, costOf, hasUsage } from './usage.js';
export type { Prices, StagePrices, StageUsage, UsageTotals } from './usage.js';
export { scoreFiles } from './score-files.js';
export type { RunReport, ScoreReport, ScoreRequest } from './score-files.js';
export { deriveSeed, groupClusters, mulberry32, percentileInterval, stratifiedIntervals } from './bootstrap.js';
export type { BootstrapSettings, Cluster, ClusterPart, Interval } from './bootstrap.js';
export { comparabilityNotes, isDifference, labelRuns, readProvenance, standings } from './ranking/index.js';
export type { Provenance, Setting, Standing, StandingRun, Unranked } from './ranking/index.js';
export { Ratio, SIXTIETHS, formatFixed, formatSigned, meanOf, normalizedFloat, normalizedMean, rawMean } from './exact.js';
export { sampleSd, scoreModeFile, scoreRepeatRows } from './modes.js';
export type { Figure, ModeDomainScore, ModeFigure, ModeScore } from './modes.js';
export { MODE_FIELD, judgeModeOf, judgedRows, readJudged, readModeFile } from './readers/index.js';
export type { ChoiceRecord, JudgeMode, JudgedFile, JudgedRecord, JudgedVisitor, RepeatRecord } from './readers/index.js';
export type { RowQuery, RowRef, RowView, TokenUsage } from './readers/index.js';
export { scoreInputs } from './inputs.js';
export type { ScoredInputs } from './inputs.js';
export { memberCollector } from './by-judge.js';
export type { MemberRecords } from './by-judge.js';
export type {
  At,
  CheckedSetting,
  ComparabilityNote,
  FieldProblem,
  MixedResume,
  PublishedGap,
  ScoreFault,
  ScoreNotice,
  ScoreWarning,
  ValueRuns,
} from './faults.js';
