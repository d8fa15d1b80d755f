import type { MergeFault } from '../../core/merge/index.js';
import type { Words } from './words.js';

export const MERGE_WORDS: Words<MergeFault> = {};
