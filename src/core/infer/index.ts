export { addUsage, inferInputSchema, inferJobs, isInferDone, requestParams, tallyPrediction, usageOf } from './infer.js';
export type { Sampling } from './infer.js';
export { judgeMessages } from './messages.js';
export type { ChatMessage, Observation } from './messages.js';
