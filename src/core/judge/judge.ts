import type { ChatBody, EndpointPool } from '../endpoints/index.js';
import { askUntilParsed, sumUsage } from './ask.js';
import { combineRepeats } from './repeats.js';
import { ParseStreak } from './parse-streak.js';
import { fail } from '../errors.js';
import { addUsage, requestParams, tallyNoOutput, type Routing, type Sampling } from '../infer/index.js';
import { parseJudgeReply } from './judge-parse.js';
import { judgeMessages } from '../infer/index.js';
import { cleanObservation, predictionOf } from '../rubrics/index.js';
import { groundTruth } from '../rows/index.js';
import type { RubricSet } from '../rubrics/index.js';
import { NO_GENERATION, judgeFailureOf, judgedOutcome, judgeOutputFields, type JudgeFields, type JudgeRepeat } from '../schemas/index.js';
import { predictionRowSchema, predictionText, type PredictionRow, type Usage } from '../schemas/index.js';
import type { DomainTally, RowChat, Stage } from '../runner/index.js';
import { domainOfTask } from '../domains.js';

/**
 * Counts, in `empty`, rows that have no prediction to judge because their inference failed, and in `noOutput` those
 * whose prediction holds no output (shown to the judge as "No output").
 */
function tallyJudgement(row: Record<string, unknown>, t: DomainTally): void {
  if (judgeFailureOf(row) === 'no-generation' && row.error !== undefined) t.empty++;
  tallyNoOutput(t, row.gen);
  addUsage(t, row.judge_usage as Usage | undefined);
}

/** What the rubric stages (one judge, a panel) share: the input, the fields, and how a row's result counts. */
export const RUBRIC_STAGE = {
  name: 'judge',
  schema: predictionRowSchema,
  outputFields: judgeOutputFields,
  inputFields: ['error', 'gen'],
  outcome: judgedOutcome,
  prediction: predictionText,
  tally: tallyJudgement,
} as const;

/**
 * `awb judge` as a stage: show the judge the history, the action, the
 * cleaned prediction and the ground truth under the domain's rubric; parse
 * its reply with the official semantics, asking again when a reply cannot be
 * parsed. Output fields follow the official judged.jsonl.
 */
export function judgeStage(
  /** Words failed requests; the requests go through the job's chat. */
  pool: Pick<EndpointPool, 'describe'>,
  rubrics: RubricSet,
  sampling: Sampling,
  parseAttempts: number,
  repeat?: number,
  routing: Routing = {},
): Stage<typeof predictionRowSchema> {
  const streak = new ParseStreak();
  return {
    ...RUBRIC_STAGE,
    requests: async (row) => {
      const request = judgeRequest(row, rubrics, sampling, routing);
      return request ? Array.from({ length: repeat ?? 1 }, () => request.body) : [];
    },
    job: (row, _key, chat) => {
      if (!row.gen) {
        const none = { total_score: 0, failed: 1, error_message: NO_GENERATION, judge_failure: 'no-generation' } as const;
        // Every row of a --repeat file carries judge_repeats: that field is how score tells the mode.
        const repeats =
          repeat === undefined
            ? {}
            : { judge_repeats: Array.from({ length: repeat }, () => ({ ...NO_GRADES, ...none, judge_attempts: 0 })) };
        return async () => ({ ...none, ...repeats });
      }
      const { body: request, prediction } = judgeRequest(row, rubrics, sampling, routing)!;
      const body = chat.encode(request);
      const extracted = prediction.text;
      /** Judgement number `n` (of --repeat's K). */
      const judgeOnce = (signal: AbortSignal, n: number) => gradeOnce(pool, chat, n, body, extracted, parseAttempts, signal, streak);
      return repeat === undefined ? (signal) => judgeOnce(signal, 0) : (signal) => repeated(repeat, judgeOnce, signal, extracted);
    },
  };
}

/**
 * One judgement of a row: request `n` asked through `chat` until its reply parses (askUntilParsed),
 * as the official judged.jsonl fields; undefined when cancelled. Shared by --repeat and panels.
 */
export async function gradeOnce(
  pool: Pick<EndpointPool, 'describe'>,
  chat: RowChat,
  n: number,
  body: ChatBody,
  extracted: string,
  parseAttempts: number,
  signal: AbortSignal,
  streak: ParseStreak,
): Promise<JudgeFields | undefined> {
  const asked = await askUntilParsed(pool, chat, n, body, parseReply, parseAttempts, signal, streak);
  if (!asked) return undefined;
  const common = {
    extracted_output: extracted,
    judge_usage: asked.usage,
    ...(asked.batchUsage && { judge_batch_usage: asked.batchUsage }),
    judge_attempts: asked.attempts,
  };
  if (asked.ok) {
    const parsed = asked.value;
    return {
      total_score: parsed.total,
      ...parsed.scores,
      failed: 0,
      strengths: parsed.strengths,
      weaknesses: parsed.weaknesses,
      ...common,
      judge_raw_output: asked.raw,
      judge_latency_ms: asked.latencyMs,
      ...(asked.ttftMs !== undefined ? { judge_ttft_ms: asked.ttftMs } : {}),
      ...(asked.decodeTokensPerS !== undefined ? { judge_decode_tokens_per_s: asked.decodeTokensPerS } : {}),
      judge_endpoint: asked.endpoint,
    };
  }
  return {
    total_score: 0,
    failed: 1,
    error_message: `Judge scoring failed: ${asked.problem}`,
    judge_failure: asked.failure,
    ...(asked.raw ? { judge_raw_output: asked.raw } : {}),
    ...common,
  };
}

export const NO_GRADES = { format: 0, factuality: 0, consistency: 0, realism: 0, quality: 0 };

function parseReply(raw: string) {
  const parsed = parseJudgeReply(raw);
  return parsed.ok ? { ok: true as const, value: parsed } : parsed;
}

/**
 * `--repeat K`: K judgements one after the other (the row holds one slot of
 * --concurrency), kept whole in `judge_repeats`; the official fields hold
 * their combination (combineRepeats). When every repeat failed, the row's
 * error is a failed request if any repeat had one (the row is asked again on
 * resume, all K), else the unparseable reply (final, as for one judgement).
 * A panel's member judges its K the same way (panelStage).
 */
export async function repeated(
  k: number,
  judgeOnce: (signal: AbortSignal, n: number) => Promise<JudgeFields | undefined>,
  signal: AbortSignal,
  extracted: string,
): Promise<(JudgeFields & { judge_repeats: JudgeRepeat[] }) | undefined> {
  const runs: JudgeFields[] = [];
  for (let i = 0; i < k; i++) {
    const one = await judgeOnce(signal, i);
    if (!one) return undefined;
    runs.push(one);
  }
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let batchUsage: Usage | undefined;
  for (const r of runs) {
    sumUsage(usage, r.judge_usage);
    if (r.judge_batch_usage) sumUsage((batchUsage ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }), r.judge_batch_usage);
  }
  const judge_repeats: JudgeRepeat[] = runs.map((r) => ({
    format: r.format ?? 0,
    factuality: r.factuality ?? 0,
    consistency: r.consistency ?? 0,
    realism: r.realism ?? 0,
    quality: r.quality ?? 0,
    total_score: r.total_score,
    failed: r.failed === 0 ? 0 : 1,
    ...(r.error_message === undefined ? {} : { error_message: r.error_message }),
    ...(r.judge_failure === undefined ? {} : { judge_failure: r.judge_failure }),
    ...(r.judge_raw_output === undefined ? {} : { judge_raw_output: r.judge_raw_output }),
    ...(r.judge_attempts === undefined ? {} : { judge_attempts: r.judge_attempts }),
    ...(r.judge_usage === undefined ? {} : { judge_usage: r.judge_usage }),
  }));
  const combined = combineRepeats(judge_repeats);
  const failedRuns = runs.filter((r) => r.judge_failure !== undefined);
  const error = failedRuns.find((r) => r.judge_failure === 'request-failed') ?? failedRuns[0];
  return {
    ...combined,
    ...(combined.failed && error ? { error_message: error.error_message, judge_failure: error.judge_failure } : {}),
    extracted_output: extracted,
    judge_usage: usage,
    ...(batchUsage && { judge_batch_usage: batchUsage }),
    judge_attempts: runs.reduce((n, r) => n + (r.judge_attempts ?? 0), 0),
    judge_latency_ms: runs.reduce((n, r) => n + (r.judge_latency_ms ?? 0), 0),
    judge_repeats,
  };
}

/** What the judge is asked about a row, and the prediction it is shown (predictionOf); undefined for a row without a generation. */
export function judgeRequest(row: PredictionRow, rubrics: RubricSet, sampling: Sampling, routing: Routing) {
  if (!row.gen) return undefined;
  const domain = domainOfTask(row.task);
  const rubric = rubrics.texts.get(domain);
  // The plan loads a rubric for every domain it can see; this catches a row whose domain only the full parse revealed.
  if (rubric === undefined) throw fail({ kind: 'no-rubric', domain, task: row.task });
  const prediction = predictionOf(row.gen);
  const body = {
    ...requestParams(sampling, routing, row),
    messages: judgeMessages(row, cleanObservation(prediction.text), cleanObservation(groundTruth(row)), rubric),
  };
  return { body, prediction };
}
