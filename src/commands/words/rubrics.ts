import type { RubricsFault } from '../../core/rubrics/index.js';
import type { Words } from './words.js';

export const RUBRICS_WORDS: Words<RubricsFault> = {};
