import type { RunnerFault } from '../../core/runner/index.js';
import type { Words } from './words.js';

export const RUNNER_WORDS: Words<RunnerFault> = {};
