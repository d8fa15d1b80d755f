import type { ScoreFault } from '../../core/score/index.js';
import type { Words } from './words.js';

export const SCORE_WORDS: Words<ScoreFault> = {};
