import { FatalEndpointError, isMalformedReply, type EndpointPool } from '../endpoints/index.js';
import { UserError } from '../errors.js';
import { addUsage, requestParams, usageOf, type Sampling } from '../infer/index.js';
import { parseJudgeReply } from './judge-parse.js';
import { judgeMessages } from '../infer/index.js';
import { cleanGroundTruth, extractPrediction } from './prediction-text.js';
import { groundTruth } from '../rows/index.js';
import type { RubricSet } from './rubrics.js';
import { NO_GENERATION, judgeFieldsSchema, judgeOutcome, type JudgeFields } from '../schemas/index.js';
import { predictionRowSchema, type Usage } from '../schemas/index.js';
import type { DomainTally, Stage } from '../runner/index.js';
import { domainOfTask } from '../domains.js';

/** Counts, in `empty`, rows that have no prediction to judge because their inference failed. */
function tallyJudgement(row: Record<string, unknown>, t: DomainTally): void {
  if (row.error_message === NO_GENERATION && row.error !== undefined) t.empty++;
  addUsage(t, row.judge_usage as Usage | undefined);
}

/**
 * `awb judge` as a stage: show the judge the history, the action, the
 * cleaned prediction and the ground truth under the domain's rubric; parse
 * its reply with the official semantics, asking again when a reply cannot be
 * parsed. Output fields follow the official judged.jsonl.
 */
export function judgeStage(
  pool: EndpointPool,
  rubrics: RubricSet,
  sampling: Sampling,
  parseAttempts: number,
  opts: { promptCacheKey?: boolean } = {},
): Stage<typeof predictionRowSchema> {
  return {
    name: 'judge',
    schema: predictionRowSchema,
    outputFields: Object.keys(judgeFieldsSchema.shape),
    outcome: judgeOutcome,
    tally: tallyJudgement,
    job: (row) => {
      if (!row.gen) return async () => ({ total_score: 0, failed: 1, error_message: NO_GENERATION });
      const domain = domainOfTask(row.task);
      const rubric = rubrics.texts.get(domain);
      // The plan loads a rubric for every domain it can see; this catches a row whose domain only the full parse revealed.
      if (rubric === undefined)
        throw new UserError(`no rubric for domain "${domain}" (task "${row.task}"); add ${domain}.md to the rubrics folder`);
      const extracted = extractPrediction(row.gen);
      const body = {
        ...requestParams(sampling, opts.promptCacheKey ? row : undefined),
        messages: judgeMessages(row, extracted, cleanGroundTruth(groundTruth(row)), rubric),
      };
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
    },
  };
}

function sumUsage(total: Usage, add: Usage | undefined): void {
  if (!add) return;
  total.prompt_tokens = (total.prompt_tokens ?? 0) + (add.prompt_tokens ?? 0);
  total.completion_tokens = (total.completion_tokens ?? 0) + (add.completion_tokens ?? 0);
  total.total_tokens = (total.total_tokens ?? 0) + (add.total_tokens ?? 0);
  if (add.reasoning_tokens !== undefined) total.reasoning_tokens = (total.reasoning_tokens ?? 0) + add.reasoning_tokens;
  if (add.cached_tokens !== undefined) total.cached_tokens = (total.cached_tokens ?? 0) + add.cached_tokens;
}
