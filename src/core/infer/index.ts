export { addUsage, inferStage, requestParams, tallyNoOutput, uncut, usageOf } from './infer.js';
export type { Routing, Sampling } from './infer.js';
export { fenced, judgeMessages } from './messages.js';
export { anchorTurn, rolloutPlan, stepCount, stepMessages } from './rollout.js';
export type { Horizon, RolloutPlan, RolloutStep } from './rollout.js';
export { StepStore, stepsPathFor } from './step-store.js';
export type { RolloutOptions } from './infer.js';
