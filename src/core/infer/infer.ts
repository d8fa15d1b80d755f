import { createHash } from 'node:crypto';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { domainOfTask } from '../domains.js';
import { FaultError } from '../errors.js';
import { isStopped, type ChatBody, type ChatResult, type EndpointPool } from '../endpoints/index.js';
import { worldModelMessages, type HistoryMode } from './messages.js';
import { groundTruth } from '../rows/index.js';
import { noOutput } from '../rubrics/index.js';
import { checkedUsage, datasetRowSchema, inferOutcome, predictionFieldsSchema } from '../schemas/index.js';
import type { DatasetRow, ManifestSettings, PredictionFields, Sampling, Usage } from '../schemas/index.js';
import type { DomainTally, RoundStep, RowChat, Stage } from '../runner/index.js';
import { anchorTurn, rolloutPlan, stepCount, stepMessages, type Horizon } from './rollout.js';
import { rolloutJob, walkRollout } from './rollout-job.js';
import { StepStore } from './step-store.js';

export type { Sampling };

/** How requests reach a server: `promptCacheKey` sends OpenAI's prompt_cache_key (see requestParams). */
export interface Routing {
  promptCacheKey?: boolean;
  /** OpenAI's own API takes every model's budget as max_completion_tokens, and its reasoning models refuse max_tokens. */
  completionTokensOnly?: boolean;
}

const BUDGET_FIELDS = ['max_tokens', 'max_completion_tokens'] as const;

/**
 * Sampling as request fields; unset ones are left out of the body. Every
 * field goes out under its own name (temperature, top_p, seed, …) but the
 * budget, which goes out under both names, since servers read one or the
 * other (a server that ignores the one given generates without limit),
 * whichever name the user gave it in; `null` for one in --extra-body leaves
 * it out. With a row and `promptCacheKey`, OpenAI's `prompt_cache_key`: one
 * per trajectory, so its turns reach the machine holding their prefix. Extra
 * body fields come last and win.
 */
export function requestParams(s: Sampling, routing: Routing = {}, row?: { task: string; id: string | number }): Record<string, unknown> {
  const key = routing.promptCacheKey && row && promptCacheKey(row);
  const { max_tokens: maxTokens, extra_body: extra = {}, ...asNamed } = s;
  const budget = [extra.max_completion_tokens, extra.max_tokens, maxTokens].find((v) => typeof v === 'number');
  const body: Record<string, unknown> = {
    ...asNamed,
    max_tokens: routing.completionTokensOnly ? undefined : budget,
    max_completion_tokens: budget,
    ...(key ? { prompt_cache_key: key } : {}),
    ...extra,
  };
  for (const field of BUDGET_FIELDS) if (body[field] === null) delete body[field];
  return body;
}

/**
 * A cap that cuts a character in the middle leaves its first bytes, which a server decodes as U+FFFD in a whole
 * reply and holds back in a stream: dropped, so both give the same text.
 */
export function uncut(text: string, finishReason: string | null | undefined): string {
  return finishReason === 'length' ? text.replace(/\uFFFD+$/u, '') : text;
}

/** The trajectory's prompt_cache_key: the same for every turn, and the same in infer and judge (a short hash, no row text). */
export function promptCacheKey(row: { task: string; id: string | number }): string {
  return `awb-${createHash('sha256')
    .update(JSON.stringify([domainOfTask(row.task), row.id]))
    .digest('hex')
    .slice(0, 24)}`;
}

function tallyPrediction(row: Record<string, unknown>, t: DomainTally): void {
  if (row.error !== undefined) return;
  if (row.gen === '') t.empty++;
  if (row.finish_reason === 'length') t.truncated++;
  tallyNoOutput(t, row.gen);
  addUsage(t, row.usage as Usage | undefined);
  // A free-running row's earlier steps: paid too.
  addUsage(t, row.rollout_usage as Usage | undefined);
}

/** Counts a row's generation when it holds no output (noOutput), as infer and judge both tally it. */
export function tallyNoOutput(t: DomainTally, gen: unknown): void {
  const none = noOutput(gen);
  if (none) t.noOutput++;
  if (none === 'unclosed-think') t.noOutputUnclosed++;
}

export function addUsage(t: DomainTally, usage: Usage | null | undefined): void {
  if (!usage) return;
  t.promptTokens += usage.prompt_tokens ?? 0;
  t.completionTokens += usage.completion_tokens ?? 0;
  t.reasoningTokens += usage.reasoning_tokens ?? 0;
  if (usage.cached_tokens !== undefined) t.cachedTokens = (t.cachedTokens ?? 0) + usage.cached_tokens;
}

/** Usage as recorded in rows: the counts that matter for cost, reasoning tokens lifted out of their details object. */
export function usageOf(c: ChatCompletion): Usage | undefined {
  if (!c.usage) return undefined;
  const reasoning = c.usage.completion_tokens_details?.reasoning_tokens;
  // Left out by vLLM without --enable-prompt-tokens-details and SGLang without --enable-cache-report.
  const cached = c.usage.prompt_tokens_details?.cached_tokens;
  // Counts a server made up (negative, fractional, beyond 2^53) are not recorded: score could not price them.
  return checkedUsage({
    prompt_tokens: c.usage.prompt_tokens,
    completion_tokens: c.usage.completion_tokens,
    total_tokens: c.usage.total_tokens,
    ...(typeof reasoning === 'number' ? { reasoning_tokens: reasoning } : {}),
    ...(typeof cached === 'number' ? { cached_tokens: cached } : {}),
  });
}

/** Free-running inference: the horizon, and where finished steps are kept (opened by the runner through the stage's `begin`). */
export interface RolloutOptions {
  horizon: Horizon;
}

/**
 * `awb infer` as a stage: ask the world model, and turn the reply (or a
 * failure that outlasted the retries) into the fields appended to the row.
 * A failed row gets `gen: ""` like the official script, plus `error`, so a
 * resume redoes it. With `rollout` (H ≥ 1), a row's earlier observations
 * from its anchor on are generated first, step by step (rolloutJob).
 */
export function inferStage(
  /** Words failed requests; the requests go through the job's chat. */
  pool: Pick<EndpointPool, 'describe'>,
  sampling: Sampling,
  history: HistoryMode,
  routing: Routing = {},
  rollout?: RolloutOptions,
): Stage<typeof datasetRowSchema> {
  const params = (row: DatasetRow) => requestParams(sampling, routing, row);
  const requestOf = (row: DatasetRow) => ({ ...params(row), messages: worldModelMessages(row, history) });
  const ask = async (chat: RowChat, n: number, body: ChatBody, signal: AbortSignal): Promise<PredictionFields | undefined> => {
    try {
      return fieldsOf(await chat.send(n, body, signal));
    } catch (err) {
      if (isStopped(err, signal)) return undefined;
      // A fault (a rejected key, an unknown model, a request no wait lets through the rate limit) is the user's to fix: the run stops.
      if (err instanceof FaultError) throw err;
      return { gen: '', error: pool.describe(err) };
    }
  };
  const horizon = rollout?.horizon ?? 0;
  let steps: StepStore | undefined;
  const counted = new Set<string>();
  const stage: Stage<typeof datasetRowSchema> = {
    name: 'infer',
    schema: datasetRowSchema,
    outputFields: Object.keys(predictionFieldsSchema.shape),
    outcome: inferOutcome,
    tally: tallyPrediction,
    requests: async (row) => [requestOf(row)],
    // The world model is asked to predict the observation: the real one is as long as a good reply.
    typicalReply: groundTruth,
    job: (row, _key, chat) => {
      const body = chat.encode(requestOf(row));
      return (signal) => ask(chat, 0, body, signal);
    },
  };
  if (!horizon) return stage;
  return {
    ...stage,
    anchor: (turn) => anchorTurn(turn, horizon),
    // What a dry run counts: every step once (a step rows share is sent once), the real observations standing in
    // for the generated ones (as long as good ones).
    requests: async (row) => {
      const plan = rolloutPlan(row, horizon);
      const real = plan.steps.slice(0, -1).map((s) => row.response[s.turn - 1]!);
      return plan.steps.flatMap((step, n) => {
        if (counted.has(step.key)) return [];
        counted.add(step.key);
        return [{ ...params(row), messages: stepMessages(row, plan, real, n) }];
      });
    },
    begin: async (output, settings, resuming) => {
      const store = await StepStore.open(output, settingsDigest(settings), resuming);
      steps = store;
      return () => store.close();
    },
    // --batch: each round asks every row's first step not kept yet, its messages built as the job builds them.
    rounds: {
      next: async (row, key) => {
        const store = begun(steps);
        let ask: RoundStep | undefined;
        // The job's walk, stopping at the first step not kept: a kept step is the round's answer, even a final one
        // the job would send again (an empty prediction): the round that kept it asks no more of it.
        await walkRollout(row, rolloutPlan(row, horizon), async (step, _n, messages) => {
          const done = await store.get(step.key);
          if (done) return { ok: true, step: done };
          ask = { key: step.key, turn: step.turn, by: key, request: { ...params(row), messages: messages() } };
          return undefined;
        });
        return ask;
      },
      keep: (step, reply) => begun(steps).add(step.key, step.turn, step.by, fieldsOf(reply)),
      steps: (row) => stepCount(row, horizon),
    },
    job: (row, key, chat) => {
      return rolloutJob(row, key, {
        horizon,
        steps: begun(steps),
        ask: (n, messages, signal) => ask(chat, n, chat.encode({ ...params(row), messages }), signal),
      });
    },
  };
}

function begun(steps: StepStore | undefined): StepStore {
  if (!steps) throw new Error('infer --horizon: the stage was not begun');
  return steps;
}

/** The fields of an answered request. */
function fieldsOf(reply: ChatResult): PredictionFields {
  const { completion, endpoint, latencyMs, ttftMs, decodeTokensPerS } = reply;
  const choice = completion.choices[0];
  // vLLM and SGLang return the thinking separately as `reasoning_content` (some servers: `reasoning`); an empty
  // one (a stream whose first delta carries `reasoning_content: ""`, its thinking then in `reasoning`) is none.
  const message = choice?.message as
    { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; refusal?: unknown } | undefined;
  const reasoning = message?.reasoning_content || message?.reasoning || undefined;
  const refusal = typeof message?.refusal === 'string' ? message.refusal : undefined;
  const usage = usageOf(completion);
  return {
    gen: uncut(message?.content ?? '', choice?.finish_reason),
    ...(reasoning ? { gen_reasoning: reasoning } : {}),
    ...(refusal ? { gen_refusal: refusal } : {}),
    finish_reason: choice?.finish_reason ?? null,
    usage: usage ?? null,
    ...(reply.batch && { batch_usage: usage ?? {} }),
    latency_ms: latencyMs,
    ...(ttftMs !== undefined ? { ttft_ms: ttftMs } : {}),
    ...(decodeTokensPerS !== undefined ? { decode_tokens_per_s: decodeTokensPerS } : {}),
    endpoint,
  };
}

/** What decides a step's answer (model, sampling, protocol, horizon): finished steps made under others are not reused. */
function settingsDigest(settings: ManifestSettings): string {
  const { world_model, sampling, history, horizon } = settings;
  return createHash('sha256')
    .update(JSON.stringify([world_model?.model ?? null, sampling ?? null, history ?? null, horizon ?? null]))
    .digest('base64url');
}
