export { judgeStage } from './judge.js';
export { loadRubrics } from './rubrics.js';
