export { pairwiseMessages, pairwiseOrders, pairwisePick, turingMessages, turingOrders, turingPick } from './choice-messages.js';
export type { ChoiceMessage, PairwiseOrder, Side, Turn, TuringOrder } from './choice-messages.js';
export { parseChoiceReply } from './choice-parse.js';
export type { Choice, ChoiceParse } from './choice-parse.js';
export { isJudgeDone, judgeInputSchema, judgeJobs, tallyJudgement } from './judge.js';
export { loadModePrompt, loadRubrics } from './rubrics.js';
export type { ChoiceMode, ModePrompt, RubricSet } from './rubrics.js';
