import type { TopFault } from '../../core/errors.js';
import type { Words } from './words.js';

export const TOP_WORDS: Words<TopFault> = {
  'domain-list-empty': (f) => `--domains names no domain (got "${f.value}"); leave the option out for every domain`,
};
