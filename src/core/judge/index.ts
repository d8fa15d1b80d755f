export { pairwiseMessages, pairwiseOrders, pairwisePick, turingMessages, turingOrders, turingPick } from './choice-messages.js';
export type { ChoiceMessage, Side, Turn } from './choice-messages.js';
export { pairwiseOrderResult, pairwiseResult, turingOrderResult, turingResult } from './choice-results.js';
export { parseChoiceReply } from './choice-parse.js';
export type { Choice } from './choice-parse.js';
export { judgeStage } from './judge.js';
export { combineRepeats } from './repeats.js';
export { pairwiseStage, turingStage } from './choice-stage.js';
export { ReferenceFile } from './reference.js';
