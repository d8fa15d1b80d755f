export { isJudgeDone, judgeInputSchema, judgeJobs, tallyJudgement } from './judge.js';
export { loadRubrics, rubricsSetting } from './rubrics.js';
export { cleanGroundTruth, extractPrediction } from './prediction-text.js';
