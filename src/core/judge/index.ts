export { isJudgeDone, judgeInputSchema, judgeJobs, tallyJudgement } from './judge.js';
export { loadRubrics } from './rubrics.js';
export { cleanGroundTruth, extractPrediction } from './prediction-text.js';
