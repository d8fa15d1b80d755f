import type { JudgeFault } from '../../core/judge/index.js';
import type { Words } from './words.js';

export const JUDGE_WORDS: Words<JudgeFault> = {};
