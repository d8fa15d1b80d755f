import type { StageFault } from '../../../core/stage/index.js';
import type { Words } from '../words.js';

/** The flags of the config fields the stage's faults name. */
const FLAG = {
  revision: '--revision',
  source: '--source',
  reference: '--reference',
  repeat: '--repeat',
  memberBaseUrl: '--member-base-url',
  memberApiKey: '--member-api-key',
  panel: '--panel',
  priceInput: '--price-input USD',
  priceOutput: '--price-output USD',
  maxTokens: '--max-tokens N',
} as const;

export const STAGE_WORDS: Words<StageFault> = {
  'download-option-with-data': (f) =>
    `${FLAG[f.option]} chooses what to download; it cannot apply to a local --data folder (drop one of them)`,
  'horizon-without-history': () => '--horizon feeds the model its own earlier observations; --no-history sends none: drop one of them',
  'option-outside-mode': (f) => `${FLAG[f.option]} goes with --mode ${f.mode}`,
  'pairwise-without-reference': () => '--mode pairwise needs --reference OTHER.jsonl',
  'seed-with-repeat': () =>
    "--seed sends each of a row's --repeat judgements the same seed: a judge that honours it answers them alike, so they measure no spread (drop one of them)",
  'panel-option-without-panel': (f) => `${FLAG[f.option]} goes with a panel of judges (--judge-model a,b,c)`,
  'not-a-panel-member': (f) => `${f.member} is not a member of the panel (--judge-model ${f.models.join(',')})`,
  'judge-endpoint-missing': (f) =>
    f.unserved.length
      ? `--judge-base-url is required (or --member-base-url NAME=URL for ${f.unserved.join(', ')})`
      : '--judge-base-url is required',
  'no-predictions-file': (f, awb) => `${f.path}: no such predictions file (run \`${awb} infer\` first, or pass --predictions)`,
  'dry-run-bad-row': (f) => `${f.message} (a run would stop at this row; fix it, or skip such rows with --on-bad-row skip)`,
  'max-cost-unpriced': (f) =>
    `--max-cost needs ${f.missing.map((m) => FLAG[m]).join(' and ')} (USD per million tokens) to bound what each request can cost`,
  'max-cost-with-batch': () => '--max-cost cannot hold back a --batch run (a batch is sent whole): drop one of them',
};
