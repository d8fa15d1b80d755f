import { z } from 'zod';
import { horizonSchema, tokenCount } from './prediction-row.js';

/**
 * The sidecar `<output>.manifest.json` that infer and judge write beside
 * their JSONL: what produced the file, so a resume can refuse different
 * settings and score can tell whether runs are comparable. Never holds a key.
 */
const endpointInfoSchema = z.object({
  /** Host (and port) only: a URL path may carry a key in some proxies. */
  hosts: z.array(z.string()),
  model: z.string(),
});

/**
 * A stage's sampling: sent with each of its requests (requestParams) and recorded in the manifest, where a
 * resume compares it. A field added here is both; the stage config's places (core/stage/settings.ts) fill it.
 */
export const samplingSchema = z.object({
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  /** --seed, sent as the request's `seed`: a server that honours it samples the same again. */
  seed: z.int().optional(),
  max_tokens: z.number().optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
});

export type Sampling = z.infer<typeof samplingSchema>;

const usageTotalsSchema = z.object({
  requests: z.int().nonnegative(),
  prompt_tokens: tokenCount,
  completion_tokens: tokenCount,
  reasoning_tokens: tokenCount.optional(),
  /** Prompt tokens served from the endpoints' prefix caches, as far as they reported them. */
  cached_tokens: tokenCount.optional(),
});

export const settingsSchema = z.object({
  world_model: endpointInfoSchema.optional(),
  sampling: samplingSchema.optional(),
  history: z.enum(['full', 'none']).optional(),
  /** infer --horizon: free-running over the last H earlier turns ('all': every one); absent: teacher-forced. */
  horizon: horizonSchema.optional(),
  judge: endpointInfoSchema.optional(),
  /** A panel of judges (--judge-model a,b,c): each member's endpoint and the rule combining their grades; `judge` names them all. */
  panel: z.object({ members: z.array(endpointInfoSchema), rule: z.enum(['mean', 'median']) }).optional(),
  judge_sampling: samplingSchema.optional(),
  rubrics: z
    .object({
      source: z.string(),
      sha256: z.string(),
      /** 'official' when every rubric came from the official {domain}/judge_system_prompt.txt layout. */
      layout: z.enum(['awb', 'official']).optional(),
      /** domain → SHA-256 of that domain's rubric. */
      domains: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  parse_attempts: z.number().optional(),
  /** The judge mode (absent: rubric, as before modes existed). */
  mode: z.enum(['rubric', 'turing', 'pairwise']).optional(),
  /** --repeat K of the rubric mode (absent: one judgement per row). */
  repeat: z.number().optional(),
  /** The system prompt of a choice mode. */
  mode_prompt: z.object({ source: z.string(), sha256: z.string() }).optional(),
  /** The reference predictions of the pairwise mode, hashed whole. */
  reference: z.object({ source: z.string(), sha256: z.string() }).optional(),
  domains: z.array(z.string()).optional(),
  limit: z.number().optional(),
  /** `engine`: where --shard auto read it (kubernetes, gitlab, circleci, buildkite, aws-batch, semaphore, github-actions, awb-variables). */
  shard: z.object({ index: z.number(), count: z.number(), engine: z.string().optional() }).optional(),
});

/**
 * A resume forced (--force) into rows made under other or unknown settings:
 * from then on the file mixes runs, whatever its `settings` say.
 */
const mixedSchema = z.object({
  /** When the forced resume started. */
  at: z.string(),
  /** What differed, as the resume check words it ("sampling: was …, now …"), or why the earlier settings are unknown. */
  reason: z.string(),
  /** Rows the file kept from before that resume. */
  rows: z.int().nonnegative(),
  /** The settings those rows were made under, when their manifest could be read. */
  settings: settingsSchema.optional(),
});

export const manifestSchema = z.object({
  format: z.literal('agentworldbench-manifest'),
  version: z.literal(1),
  stage: z.enum(['infer', 'judge']),
  tool: z.object({ name: z.string(), version: z.string() }),
  /** The run's name (--label), shown by score, compare and report instead of the file name. Not a setting: it may change on resume. */
  label: z.string().optional(),
  /** Ids of the Batch API batches whose replies the file holds (--batch: batch mode); absent for online runs. Not a setting. */
  batches: z.array(z.string()).optional(),
  dataset: z.object({
    repo: z.string().optional(),
    revision: z.string().optional(),
    /** The resolved commit when the data came from the Hub; absent for a local folder of unknown origin. */
    commit: z.string().optional(),
    /** Which hub it came from (absent: Hugging Face, or unknown for a folder of unknown origin). */
    hub: z.enum(['huggingface', 'modelscope']).optional(),
    /** domain → SHA-256 of its file as the hub listed it: the same data from either hub has the same hashes. */
    sha256: z.record(z.string(), z.string()).optional(),
    /** Domains whose files differ from what their download recorded (edited since): not the hub's, so no commit is recorded. */
    edited: z.array(z.string()).optional(),
    /** Folder it was read from (for infer) or predictions file (for judge). */
    source: z.string(),
    domains: z.array(z.string()),
    rows: z.record(z.string(), z.number()),
  }),
  /** Everything that changes the results; a resume must match it exactly. */
  settings: settingsSchema,
  /** Forced resumes into rows made under other or unknown settings, oldest first; absent: one run's settings throughout. */
  mixed: z.array(mixedSchema).optional(),
  /** The manifest of the predictions a judged file was made from. */
  upstream: z.unknown().optional(),
  started_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().optional(),
  complete: z.boolean(),
  /**
   * `done`: rows with a final result (final failures among them); `failed`: rows written whose result is a failure,
   * as score counts them (a final failure, or a request that outlasted its retries); `to_retry`: those of them the
   * same command asks again (absent in manifests before 0.1: their `failed` meant these alone).
   */
  counts: z.object({
    total: z.number(),
    done: z.number(),
    failed: z.number(),
    to_retry: z.number().optional(),
    per_domain: z.record(
      z.string(),
      z.object({
        total: z.number(),
        done: z.number(),
        failed: z.number(),
        to_retry: z.number().optional(),
        empty: z.number().optional(),
        truncated: z.number().optional(),
        no_output: z.number().optional(),
      }),
    ),
  }),
  usage: usageTotalsSchema,
  endpoints: z.record(z.string(), z.object({ requests: z.number(), failures: z.number() })).optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestSettings = Manifest['settings'];
export type MixedRun = z.infer<typeof mixedSchema>;

export function manifestPathFor(output: string): string {
  return `${output}.manifest.json`;
}
