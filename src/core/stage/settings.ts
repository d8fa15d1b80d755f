import type { Routing, Sampling } from '../infer/index.js';
import type { ManifestSettings } from '../schemas/index.js';
import type { InferConfig, JudgeConfig, RunConfig } from './config.js';

/*
 * Where each option of a config lands: the sampling sent with every request,
 * a setting of its own, or nothing the manifest records (how a run goes, not
 * what it yields). The manifest's settings decide resume and comparability; a
 * config field without a place here does not compile.
 */

type Place =
  /** A field of the stage's sampling: sent with each request, recorded in the manifest. */
  | { sampling: keyof Sampling }
  /** A setting of its own, recorded when given. */
  | { setting: keyof ManifestSettings }
  /** Recorded, as the stage derives it: its endpoints, data, rubrics, mode prompt or reference. */
  | 'derived'
  /** How the run goes (sending, retries, resume, output): its results are the same either way. */
  | 'run';

type Places<C> = { readonly [K in keyof C]-?: Place };

const sampling = (field: keyof Sampling) => ({ sampling: field });
const setting = (field: keyof ManifestSettings) => ({ setting: field });

/** RunConfig's fields that change no result, as one block. */
const RUN_ONLY = {
  concurrency: 'run',
  timeout: 'run',
  maxRetries: 'run',
  maxInflightMb: 'run',
  onBadRow: 'run',
  grace: 'run',
  maxReplyMb: 'run',
  stream: 'run',
  streamIdle: 'run',
  batch: 'run',
  batchPoll: 'run',
  batchMaxLines: 'run',
  batchMaxMb: 'run',
  dryRun: 'run',
  retryFailed: 'run',
  label: 'run',
  force: 'run',
  pace: 'run',
  preflight: 'run',
  promptCacheKey: 'run',
  // A cap decides how far a run goes, never what a row's result is: outputs under any cap resume and compare alike.
  maxCost: 'run',
  priceInput: 'run',
  priceOutput: 'run',
  apiKey: 'run',
  key: 'run',
  output: 'run',
} as const satisfies Partial<Places<RunConfig & { apiKey: unknown; key: unknown; output: unknown }>>;

/* In the manifest's order: the sampling's fields, then the settings. */
export const INFER_PLACES = {
  temperature: sampling('temperature'),
  seed: sampling('seed'),
  maxTokens: sampling('max_tokens'),
  extraBody: sampling('extra_body'),
  topP: sampling('top_p'),
  history: setting('history'),
  horizon: setting('horizon'),
  domains: setting('domains'),
  limit: setting('limit'),
  shard: setting('shard'),
  modelBaseUrl: 'derived',
  modelName: 'derived',
  data: 'derived',
  source: 'derived',
  revision: 'derived',
  ...RUN_ONLY,
} as const satisfies Places<InferConfig>;

export const JUDGE_PLACES = {
  temperature: sampling('temperature'),
  seed: sampling('seed'),
  maxTokens: sampling('max_tokens'),
  extraBody: sampling('extra_body'),
  repeat: setting('repeat'),
  parseAttempts: setting('parse_attempts'),
  domains: setting('domains'),
  shard: setting('shard'),
  predictions: 'derived',
  judgeBaseUrl: 'derived',
  judgeModel: 'derived',
  memberBaseUrl: 'derived',
  memberApiKey: 'derived',
  panel: 'derived',
  rubrics: 'derived',
  mode: 'derived',
  reference: 'derived',
  ...RUN_ONLY,
} as const satisfies Places<JudgeConfig>;

/** What a config's places give: the sampling (every field, given or not) and the settings given. */
function placed<C extends object>(places: Places<C>, config: C): { sampling: Sampling; settings: ManifestSettings } {
  const s: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [field, place] of Object.entries(places) as [keyof C & string, Place][]) {
    const value = config[field];
    if (typeof place !== 'object') continue;
    if ('sampling' in place) s[place.sampling] = value;
    else if (value !== undefined) settings[place.setting] = value;
  }
  return { sampling: s as Sampling, settings: settings as ManifestSettings };
}

/** Sampling as infer sends it. */
export function inferSampling(c: InferConfig): Sampling {
  return placed(INFER_PLACES, c).sampling;
}

/** Sampling as the judge sends it. */
export function judgeSampling(c: JudgeConfig): Sampling {
  return placed(JUDGE_PLACES, c).sampling;
}

/** Settings go into the manifest, where an absent option and an undefined one must compare equal. */
export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** An endpoint as the manifest records it: hosts only (a path may carry a key) and the model. */
interface Served {
  hosts: string[];
  model: string;
}

/** infer's settings: the world model, its sampling, then the options recorded as settings. */
export function inferSettings(c: InferConfig, worldModel: Served): ManifestSettings {
  const { sampling, settings } = placed(INFER_PLACES, c);
  return { world_model: worldModel, sampling: dropUndefined(sampling), ...settings };
}

/**
 * judge's settings: the judge (a panel's members and rule), its sampling, what the mode judges
 * with (`derived`: rubrics, or the mode, its prompt and reference), then the options recorded as settings.
 */
export function judgeSettings(c: JudgeConfig, judge: Served, members: Served[] | undefined, derived: ManifestSettings): ManifestSettings {
  const { sampling, settings } = placed(JUDGE_PLACES, c);
  return {
    judge,
    ...(members && { panel: { members, rule: c.panel ?? 'mean' } }),
    judge_sampling: dropUndefined(sampling),
    ...derived,
    ...settings,
  };
}

/** The endpoint pool's settings from the config. */
export function poolSettings(c: RunConfig) {
  return {
    timeoutMs: c.timeout,
    maxRetries: c.maxRetries,
    maxReplyBytes: c.maxReplyMb * 2 ** 20,
    ...(c.pace ? { pacing: { concurrency: c.concurrency } } : {}),
    ...(c.stream ? { stream: true, idleMs: c.streamIdle } : {}),
    sent: { ...(c.maxTokens !== undefined && { maxTokens: c.maxTokens }), ...(c.extraBody && { extraBody: c.extraBody }) },
  };
}

export const OPENAI_HOST = 'api.openai.com';

/** Whether a base URL is OpenAI's API, over https: the one world-model host OPENAI_API_KEY is meant for. */
export function isOpenAIEndpoint(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && u.hostname.toLowerCase() === OPENAI_HOST;
  } catch {
    return false;
  }
}

/** How requests reach the stage's endpoints `urls`. */
export function routingOf(c: Pick<RunConfig, 'promptCacheKey'>, urls: readonly string[]): Routing {
  return { promptCacheKey: c.promptCacheKey, completionTokensOnly: urls.every(isOpenAIEndpoint) };
}
