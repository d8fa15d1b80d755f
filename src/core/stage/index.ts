export { inferConfig, judgeConfig } from './config.js';
export type { Checked, InferConfig, JudgeConfig, JudgeMode, KeyConfig, MemberValue, RunConfig } from './config.js';
export { NO_SIGNALS } from './display.js';
export type { DisplayEvent, Ending, RunInterrupts, Spread, StageDisplay, StageNotice, StageSignals } from './display.js';
export type { StageFault } from './faults.js';
export { runInfer } from './infer.js';
export { runJudge } from './judge.js';
export { pathSegment } from './outputs.js';
export { INFER_PLACES, JUDGE_PLACES, OPENAI_HOST, isOpenAIEndpoint, poolSettings } from './settings.js';
