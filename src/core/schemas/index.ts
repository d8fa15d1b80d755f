export { datasetRowSchema, taskSchema, turnProblem } from './dataset-row.js';
export type { DatasetRow } from './dataset-row.js';
export {
  DIMENSIONS,
  NO_GENERATION,
  NO_REFERENCE,
  judgeFailureOf,
  judgeFieldsSchema,
  judgedOutcome,
  judgedRowSchema,
  judgedScoreSchema,
  panelEntrySchema,
} from './judged-row.js';
export type { Dimension, JudgeFields, PanelEntry } from './judged-row.js';
export { manifestPathFor, manifestSchema } from './manifest.js';
export type { Manifest, ManifestSettings, MixedRun, Sampling } from './manifest.js';
export {
  checkedUsage,
  horizonSchema,
  inferOutcome,
  predictionFieldsSchema,
  predictionRowSchema,
  predictionText,
} from './prediction-row.js';
export type { Horizon, Outcome, PredictionFields, PredictionRow, Usage } from './prediction-row.js';
export { judgeFailureSchema, judgeRepeatSchema, judgeRepeatsSchema } from './judge-repeat.js';
export type { JudgeFailure, JudgeRepeat } from './judge-repeat.js';
export {
  choiceHits,
  choicePanelEntrySchema,
  orderFigures,
  judgeOutputFields,
  pairwiseFieldsSchema,
  pairwisePanelResultSchema,
  pairwiseResultSchema,
  repeatFieldsSchema,
  turingFieldsSchema,
  turingPanelResultSchema,
  turingResultSchema,
} from './judge-modes.js';
export type {
  ChoicePanelEntry,
  PairwiseOrderResult,
  PairwisePanelResult,
  PairwiseResult,
  TuringOrderResult,
  TuringPanelResult,
  TuringResult,
} from './judge-modes.js';
export { batchResultLineSchema, batchStateSchema } from './batch-state.js';
export type { BatchEntry, BatchState } from './batch-state.js';
