import type { RowsFault } from '../../core/rows/index.js';
import type { Words } from './words.js';

export const ROWS_WORDS: Words<RowsFault> = {};
