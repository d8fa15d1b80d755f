import type { DatasetFault } from '../../../core/dataset/index.js';
import type { Words } from '../words.js';

export const DATASET_WORDS: Words<DatasetFault> = {};
