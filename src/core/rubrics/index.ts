/*
 * What a judge is given, without the judge: the rubric and mode prompt texts,
 * and the prediction and ground truth as it compares them. score and report
 * use these too, so they live apart from the judge stages (and their client).
 */
export { OFFICIAL_FILE, loadModePrompt, loadRubrics, rubricsSetting } from './rubrics.js';
export type { ModePrompt, RubricSet } from './rubrics.js';
export { NO_OUTPUT, NO_OUTPUT_MIN_ROWS, NO_OUTPUT_SHARE, cleanObservation, extractPrediction, judgedTexts, noOutput, predictionOf } from './prediction-text.js';
export type { NoOutput, Prediction } from './prediction-text.js';
export { lastBlock, stripThink } from './think.js';
export type { RubricsFault, RubricsNotice } from './faults.js';
