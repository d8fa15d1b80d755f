import type { DriftFault } from '../../../core/drift/index.js';
import type { Words } from '../words.js';

const HOW = 'give the judged teacher-forced run and judged runs of the same model made with `infer --horizon H`';

export const DRIFT_WORDS: Words<DriftFault> = {
  'drift-no-teacher-forced': (f) =>
    `drift: none of ${f.files.join(', ')} is teacher-forced (rows without a horizon, as \`infer\` makes them without --horizon); ${HOW}`,
  'drift-no-free-running': (f) => `drift: ${f.file} is the only run, and it is teacher-forced; ${HOW}`,
  'drift-horizon-twice': (f) =>
    `drift: ${f.files[0]} and ${f.files[1]} are both at ${f.horizon === '0' ? 'horizon 0 (teacher-forced)' : `horizon ${f.horizon}`}; give one run per horizon`,
  'drift-file-mixes-horizons': (f) =>
    `drift: ${f.file} holds rows made at different horizons (${f.horizons.join(', ')}; 0 is teacher-forced); a run made at one horizon is one file`,
  'drift-no-rows-in-common': (f) =>
    `drift: no row is valid in every run of ${f.files.join(', ')}; were they judged on the same data (same --domains, --limit, --shard)?`,
};
