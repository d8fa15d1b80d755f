export { datasetRowSchema, turnProblem } from './dataset-row.js';
export type { DatasetRow } from './dataset-row.js';
export { DIMENSIONS, NO_GENERATION, judgeFieldsSchema, judgeOutcome, judgedScoreSchema } from './judged-row.js';
export type { Dimension, JudgeFields } from './judged-row.js';
export { manifestPathFor, manifestSchema } from './manifest.js';
export type { Manifest, ManifestSettings } from './manifest.js';
export { inferOutcome, predictionFieldsSchema, predictionRowSchema } from './prediction-row.js';
export type { Outcome, PredictionFields, PredictionRow, Usage } from './prediction-row.js';
