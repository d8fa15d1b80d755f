import type { InferFault } from '../../../core/infer/index.js';
import type { Words } from '../words.js';

export const INFER_WORDS: Words<InferFault> = {};
