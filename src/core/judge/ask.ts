import { isStopped, type ChatBody, type EndpointPool } from '../endpoints/index.js';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { FaultError } from '../errors.js';
import { usageOf } from '../infer/index.js';
import type { RowChat } from '../runner/index.js';
import type { Usage } from '../schemas/index.js';
import type { ParseStreak } from './parse-streak.js';

/** How one question to the judge went, over all its attempts. */
type Asked<T> = {
  raw: string;
  usage: Usage;
  /** The part of `usage` the Batch API answered (--batch), billed at its discount. */
  batchUsage?: Usage;
  latencyMs: number;
  endpoint?: string;
  attempts: number;
  /** With --stream: time to the first token and decode speed of the last request. */
  ttftMs?: number;
  decodeTokensPerS?: number;
} & ({ ok: true; value: T } | { ok: false; failure: 'unparsed' | 'request-failed'; problem: string });

/**
 * Asks the judge request `n` of a row through `chat` until its reply parses,
 * up to `parseAttempts` requests in all (the official re-ask loop), for every
 * judge mode; a reply the parser calls final ends the loop. A request that outlasted the pool's retries (a garbled
 * body, no chat completion, among them: --max-retries bounds every failure) ends the loop. undefined when cancelled.
 * How it ended goes to `streak`, which throws to stop a run whose judge never gives a reply that parses.
 */
export async function askUntilParsed<T>(
  pool: Pick<EndpointPool, 'describe'>,
  chat: RowChat,
  n: number,
  body: ChatBody,
  parse: (raw: string) => { ok: true; value: T } | { ok: false; reason: string; final?: true },
  parseAttempts: number,
  signal: AbortSignal,
  streak: ParseStreak,
): Promise<Asked<T> | undefined> {
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let batchUsage: Usage | undefined;
  let raw = '';
  let problem = '';
  let latencyMs = 0;
  let endpoint: string | undefined;
  let attempts = 0;
  let timings: { ttftMs?: number; decodeTokensPerS?: number };
  let cut = false;
  let requestFailed = false;
  while (attempts < parseAttempts) {
    attempts++;
    try {
      const reply = await chat.send(n, body, signal);
      if (reply.batch) sumUsage((batchUsage ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }), usageOf(reply.completion));
      latencyMs += reply.latencyMs;
      endpoint = reply.endpoint;
      timings = {
        ...(reply.ttftMs !== undefined ? { ttftMs: reply.ttftMs } : {}),
        ...(reply.decodeTokensPerS !== undefined ? { decodeTokensPerS: reply.decodeTokensPerS } : {}),
      };
      sumUsage(usage, usageOf(reply.completion));
      const choice = reply.completion.choices[0];
      raw = choice?.message?.content ?? '';
      const parsed = parse(raw);
      cut = choice?.finish_reason === 'length';
      if (parsed.ok) {
        streak.parsed();
        return { ok: true, value: parsed.value, raw, usage, ...(batchUsage && { batchUsage }), latencyMs, endpoint, attempts, ...timings };
      }
      problem = `reply could not be parsed: ${parsed.reason}${unparsedWhy(pool, choice)}`;
      if (parsed.final) break;
    } catch (err) {
      if (isStopped(err, signal)) return undefined;
      // A fault (a rejected key, an unknown model, a request no wait lets through the rate limit) is the user's to fix: the run stops.
      if (err instanceof FaultError) throw err;
      // A failed request says nothing of the judge's format: the row is asked again on resume.
      problem = `request failed: ${pool.describe(err)}`;
      requestFailed = true;
      break;
    }
  }
  if (!requestFailed) streak.failed(cut, problem);
  const failure = requestFailed ? ('request-failed' as const) : ('unparsed' as const);
  return { ok: false, failure, problem, raw, usage, ...(batchUsage && { batchUsage }), latencyMs, endpoint, attempts };
}

/**
 * What the reply says of why it could not be parsed: the judge refused (OpenAI's `refusal`, with no
 * content), or the generation was cut off at --max-tokens (a reasoning judge spending its budget
 * thinking). Without it, both read as a judge that answers in the wrong format.
 */
function unparsedWhy(pool: Pick<EndpointPool, 'describe'>, choice: ChatCompletion.Choice | undefined): string {
  const refusal = choice?.message?.refusal;
  // Shown as errors are: one line, secrets removed.
  if (!choice?.message?.content && typeof refusal === 'string' && refusal) return ` (the judge refused: ${pool.describe(refusal)})`;
  return choice?.finish_reason === 'length' ? ' (cut off by --max-tokens)' : '';
}

export function sumUsage(total: Usage, add: Usage | undefined): void {
  if (!add) return;
  total.prompt_tokens = (total.prompt_tokens ?? 0) + (add.prompt_tokens ?? 0);
  total.completion_tokens = (total.completion_tokens ?? 0) + (add.completion_tokens ?? 0);
  total.total_tokens = (total.total_tokens ?? 0) + (add.total_tokens ?? 0);
  if (add.reasoning_tokens !== undefined) total.reasoning_tokens = (total.reasoning_tokens ?? 0) + add.reasoning_tokens;
  if (add.cached_tokens !== undefined) total.cached_tokens = (total.cached_tokens ?? 0) + add.cached_tokens;
}
