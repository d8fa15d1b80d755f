import type { KeySource } from '../endpoints/index.js';
import type { HubKind } from '../dataset/index.js';
import type { Shard } from '../rows/index.js';
import type { Horizon } from '../schemas/index.js';
import { fail } from '../errors.js';

/*
 * A stage's typed config: the one source of what a run does. Commands fill it
 * from their options (same names, so a new option is a field here and its row
 * in the option table); the builders below check the rules between options
 * once, before anything is read; settings.ts derives from it what the manifest
 * records and a resume compares.
 */

/** What infer and judge share: selection, sampling, and how requests are sent, retried, resumed and stopped. */
export interface RunConfig {
  domains: string[] | undefined;
  shard: Shard | undefined;
  concurrency: number;
  temperature: number | undefined;
  /** The sampling seed sent with each request (servers that honour it sample reproducibly); undefined: none sent. */
  seed: number | undefined;
  maxTokens: number | undefined;
  extraBody: Record<string, unknown> | undefined;
  /** Per request, in ms. */
  timeout: number;
  maxRetries: number;
  maxInflightMb: number;
  onBadRow: 'stop' | 'skip';
  /** In seconds. */
  grace: number;
  maxReplyMb: number;
  stream: boolean;
  /** In ms. */
  streamIdle: number;
  batch: boolean;
  /** In ms. */
  batchPoll: number;
  batchMaxLines: number;
  batchMaxMb: number;
  dryRun: boolean;
  retryFailed: boolean;
  label: string | undefined;
  force: boolean;
  pace: boolean;
  preflight: boolean;
  promptCacheKey: boolean;
  /** --max-cost: the most the output's requests may cost, in USD, at the prices below. */
  maxCost: number | undefined;
  /** USD per million prompt tokens. */
  priceInput: number | undefined;
  /** USD per million completion tokens. */
  priceOutput: number | undefined;
}

/** The key sent to an endpoint, and where it came from (for the words of a rejected key). */
export interface KeyConfig {
  apiKey: string;
  key: KeySource;
}

export interface InferConfig extends RunConfig, KeyConfig {
  modelBaseUrl: string[];
  modelName: string;
  /** A local copy of the dataset; else it is downloaded from `source` at `revision`. */
  data: string | undefined;
  source: HubKind;
  revision: string | undefined;
  output: string | undefined;
  limit: number | undefined;
  topP: number | undefined;
  history: 'full' | 'none';
  /** Free-running (docs/drift.md): the last H earlier observations are the model's own; undefined: teacher-forced (H = 0). */
  horizon: Horizon | undefined;
}

export type JudgeMode = 'rubric' | 'turing' | 'pairwise';

/** NAME=VALUE of a panel member's own URL or key. */
export interface MemberValue {
  member: string;
  value: string;
}

export interface JudgeConfig extends RunConfig, KeyConfig {
  predictions: string;
  judgeBaseUrl: string[];
  /** One model, or several: a panel. */
  judgeModel: string[];
  memberBaseUrl: MemberValue[];
  memberApiKey: MemberValue[];
  panel: 'mean' | 'median' | undefined;
  rubrics: string | undefined;
  output: string | undefined;
  mode: JudgeMode;
  reference: string | undefined;
  repeat: number | undefined;
  parseAttempts: number;
}

/** --max-cost needs the prices and a completion limit to bound each request, and online sending to hold it back. */
function checkCostCap(c: RunConfig): void {
  if (c.maxCost === undefined) return;
  const missing = (['priceInput', 'priceOutput', 'maxTokens'] as const).filter((f) => c[f] === undefined);
  if (missing.length) throw fail({ kind: 'max-cost-unpriced', missing });
  if (c.batch) throw fail({ kind: 'max-cost-with-batch' });
}

declare const checked: unique symbol;
/** A config whose options passed the rules between them: what the stage entries take. */
export type Checked<C> = C & { readonly [checked]: true };

/** The infer config, its options checked against each other. */
export function inferConfig(c: InferConfig): Checked<InferConfig> {
  checkCostCap(c);
  if (c.data !== undefined && (c.revision !== undefined || c.source !== 'huggingface')) {
    throw fail({ kind: 'download-option-with-data', option: c.revision !== undefined ? 'revision' : 'source' });
  }
  if (c.horizon !== undefined && c.history === 'none') throw fail({ kind: 'horizon-without-history' });
  return c as Checked<InferConfig>;
}

/** The judge config, its options checked against each other: a mode's options, a panel's, and an endpoint for every judge. */
export function judgeConfig(c: JudgeConfig): Checked<JudgeConfig> {
  checkCostCap(c);
  if (c.reference !== undefined && c.mode !== 'pairwise')
    throw fail({ kind: 'option-outside-mode', option: 'reference', mode: 'pairwise' });
  if (c.mode === 'pairwise' && c.reference === undefined) throw fail({ kind: 'pairwise-without-reference' });
  if (c.repeat !== undefined && c.mode !== 'rubric') throw fail({ kind: 'option-outside-mode', option: 'repeat', mode: 'rubric' });
  // A judge that honours the seed would answer the K repeats alike: they would measure no spread, only cost K times as much.
  if (c.repeat !== undefined && c.repeat > 1 && c.seed !== undefined) throw fail({ kind: 'seed-with-repeat' });
  const models = c.judgeModel;
  if (models.length < 2) {
    const given = (['memberBaseUrl', 'memberApiKey', 'panel'] as const).find((o) =>
      o === 'panel' ? c.panel !== undefined : c[o].length > 0,
    );
    if (given) throw fail({ kind: 'panel-option-without-panel', option: given });
    if (!c.judgeBaseUrl.length) throw fail({ kind: 'judge-endpoint-missing', unserved: [] });
    return c as Checked<JudgeConfig>;
  }
  for (const { member } of [...c.memberBaseUrl, ...c.memberApiKey]) {
    if (!models.includes(member)) throw fail({ kind: 'not-a-panel-member', member, models });
  }
  const unserved = models.filter((m) => !c.judgeBaseUrl.length && !c.memberBaseUrl.some((u) => u.member === m));
  if (unserved.length) throw fail({ kind: 'judge-endpoint-missing', unserved });
  return c as Checked<JudgeConfig>;
}
