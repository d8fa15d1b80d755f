export { addUsage, inferStage, requestParams, uncut, usageOf } from './infer.js';
export type { Routing, Sampling } from './infer.js';
export { fenced, judgeMessages } from './messages.js';
