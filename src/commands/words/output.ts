import type { OutputFault } from '../../core/output/index.js';
import type { Words } from './words.js';

export const OUTPUT_WORDS: Words<OutputFault> = {};
