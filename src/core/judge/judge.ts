import { FatalEndpointError, isMalformedReply, type EndpointPool } from '../endpoints/index.js';
import { UserError } from '../errors.js';
import { addUsage, requestParams, usageOf, type Sampling } from '../infer/index.js';
import { parseJudgeReply } from './judge-parse.js';
import { judgeMessages } from '../infer/index.js';
import { cleanGroundTruthToken, extractPrediction } from './prediction-text.js';
import { decodeToken, groundTruth, type RowText } from '../rows/index.js';
import type { RubricSet } from './rubrics.js';
import type { JudgeFields } from '../schemas/index.js';
import { predictionRowSchema, type PredictionRow, type Usage } from '../schemas/index.js';
import type { DomainTally, Job } from '../runner/index.js';
import { domainOfTask } from '../domains.js';

export const judgeInputSchema = predictionRowSchema;

/** The official script's message for a row without a generation; such rows are final, not retried. */
export const NO_GENERATION = 'No model generation';

/**
 * A row without a generation is final only when the model really answered
 * nothing: one whose inference failed (awb's `error`) is redone once infer has
 * filled it in, instead of keeping "No model generation" for good.
 */
export function isJudgeDone(row: Record<string, unknown>): boolean {
  return Number(row.failed) === 0 || (row.error_message === NO_GENERATION && row.error === undefined);
}

/** Counts, in `empty`, rows that have no prediction to judge because their inference failed. */
export function tallyJudgement(row: Record<string, unknown>, t: DomainTally): void {
  if (row.error_message === NO_GENERATION && row.error !== undefined) t.empty++;
  addUsage(t, row.judge_usage as Usage | undefined);
}

/**
 * Builds the per-row work of `awb judge`: show the judge the history, the
 * action, the cleaned prediction and the ground truth under the domain's
 * rubric; parse its reply with the official semantics, asking again when a
 * reply cannot be parsed. Output fields follow the official judged.jsonl.
 */
export function judgeJobs(pool: EndpointPool, rubrics: RubricSet, sampling: Sampling, parseAttempts: number) {
  return (row: PredictionRow, text: RowText): Job => {
    if (!row.gen) return async () => ({ total_score: 0, failed: 1, error_message: NO_GENERATION });
    const domain = domainOfTask(row.task);
    const rubric = rubrics.texts.get(domain);
    // The plan loads a rubric for every domain it can see; this catches a row whose domain only the full parse revealed.
    if (rubric === undefined)
      throw new UserError(`no rubric for domain "${domain}" (task "${row.task}"); add ${domain}.md to the rubrics folder`);
    const extracted = extractPrediction(decodeToken(text.field('gen')));
    const truth = cleanGroundTruthToken(groundTruth(row, text));
    const body = pool.encode(judgeMessages(row, text, extracted, truth, rubric), requestParams(sampling), text);
    return async (signal): Promise<JudgeFields | undefined> => {
      const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      let lastRaw = '';
      let lastProblem = '';
      let latency = 0;
      let endpointUsed: string | undefined;
      let attempts = 0;
      while (attempts < parseAttempts) {
        attempts++;
        try {
          const { completion, latencyMs, endpoint } = await pool.chat(body, signal);
          latency += latencyMs;
          endpointUsed = endpoint;
          sumUsage(usage, usageOf(completion));
          lastRaw = completion.choices[0]?.message?.content ?? '';
          const parsed = parseJudgeReply(lastRaw);
          if (parsed.ok) {
            return {
              total_score: parsed.total,
              ...parsed.scores,
              failed: 0,
              strengths: parsed.strengths,
              weaknesses: parsed.weaknesses,
              extracted_output: extracted,
              judge_raw_output: lastRaw,
              judge_usage: usage,
              judge_latency_ms: latency,
              judge_attempts: attempts,
              judge_endpoint: endpointUsed,
            };
          }
          lastProblem = `reply could not be parsed: ${parsed.reason}`;
        } catch (err) {
          if (signal.aborted) return undefined;
          if (err instanceof FatalEndpointError) throw err;
          lastProblem = `request failed: ${pool.describe(err)}`;
          // A failure that outlasted the client's retries will not heal in the next second; a garbled body might.
          if (!isMalformedReply(err)) break;
        }
      }
      return {
        total_score: 0,
        failed: 1,
        error_message: `Judge scoring failed: ${lastProblem}`,
        extracted_output: extracted,
        ...(lastRaw ? { judge_raw_output: lastRaw } : {}),
        judge_usage: usage,
        judge_attempts: attempts,
      };
    };
  };
}

function sumUsage(total: Usage, add: Usage | undefined): void {
  if (!add) return;
  total.prompt_tokens = (total.prompt_tokens ?? 0) + (add.prompt_tokens ?? 0);
  total.completion_tokens = (total.completion_tokens ?? 0) + (add.completion_tokens ?? 0);
  total.total_tokens = (total.total_tokens ?? 0) + (add.total_tokens ?? 0);
  if (add.reasoning_tokens !== undefined) total.reasoning_tokens = (total.reasoning_tokens ?? 0) + add.reasoning_tokens;
}
