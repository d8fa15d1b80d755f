export { addUsage, inferStage, requestParams, usageOf } from './infer.js';
export type { Routing, Sampling } from './infer.js';
export { fenced, judgeMessages } from './messages.js';
