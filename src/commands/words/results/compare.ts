import type { CompareFault } from '../../../core/compare/index.js';
import type { Words } from '../words.js';

export const COMPARE_WORDS: Words<CompareFault> = {
  // Ids, as --domains takes them: a misspelt name shows as typed beside the ones that would do.
  'domains-in-neither-run': (f) =>
    `--domains: neither ${f.baseline} nor ${f.candidate} has rows of ${f.domains.map((d) => `"${d}"`).join(', ')}; they have ${f.has.join(', ') || 'no rows'}`,
};
