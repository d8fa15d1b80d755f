/*
 * When a failed attempt is tried again, and after how long: pure functions,
 * the same rules as the openai client's own retries (which the pool turns
 * off so that each attempt can go to the endpoint best placed for it).
 */
import type { BudgetOverContext, RefusedSetting } from './faults.js';
import { isDeadConnectionCode } from './health.js';

/**
 * Why an attempt failed, as data (classify.ts, attemptFailure): every retry, health and streak decision
 * reads these fields, never an error's text.
 */
export type AttemptFailure =
  /** No usable reply: refused, reset, cut off, too large (`cause`). */
  | { kind: 'connection'; cause: NetworkCause }
  /** No reply in time: the whole reply (or stream) over --timeout (`request`), or a reply that stopped sending once begun (`idle`). */
  | { kind: 'timeout'; timeout: 'request' | 'idle' }
  /** A 200 whose body is no chat completion (empty, a web page, cut JSON, no choices, an aborted generation): a server or proxy fault that may pass. */
  | { kind: 'malformed' }
  /** An HTTP error status, with the reply's headers and what its body says of itself. */
  | { kind: 'status'; status: number; headers: { get(name: string): string | null }; refusal: Refusal };

/**
 * What cut a connection: the system error code (`ECONNRESET`, `ECONNREFUSED`, …), or awb's own reading of the
 * reply: over --max-reply-mb, a compressed body that does not decode, closed before it was complete, or a
 * stream that broke off (an error event, no finish reason); `unknown` when nothing says.
 */
export type NetworkCause = 'reply-too-large' | 'reply-undecodable' | 'reply-cut' | 'stream-broke' | 'unknown' | (string & {});

/**
 * An error status's body as data: the server's own code, type and parameter where it gives them
 * (OpenAI's `error.code` and `error.param`, vLLM's `type`, FastAPI's `loc`), and what the refusal is
 * about: the model name, the prompt's length (the row's own), a prompt that fits pushed over the context by the completion
 * budget (`budget`: the settings'), or anything else (classify.ts, refusalAbout).
 */
export interface Refusal {
  code?: string;
  type?: string;
  param?: string;
  about: 'model' | 'context' | 'budget' | 'other';
  /** A setting the refusal names as one the server or model does not take (classify.ts, refusedSetting). */
  setting?: RefusedSetting;
  /** With `about: 'budget'`: the numbers the server gave. */
  over?: BudgetOverContext;
}

/** A failure's identity for the streaks: two failures with the same key are the same failure again. */
export function failureKey(f: AttemptFailure): string {
  if (f.kind === 'connection') return `connection ${f.cause}`;
  if (f.kind === 'timeout') return `timeout ${f.timeout}`;
  if (f.kind === 'malformed') return 'malformed';
  const { code, type, param, about } = f.refusal;
  return `${f.status} ${about} ${type ?? ''} ${code ?? ''} ${param ?? ''}`;
}

/** A connection cut under a request: not refused or unreachable (no connection made), not timed out, not one of awb's own limits on a reply. */
export function isCutUnder(f: AttemptFailure): boolean {
  return f.kind === 'connection' && f.cause !== 'reply-too-large' && f.cause !== 'reply-undecodable' && !isDeadConnectionCode(f.cause);
}

/** Whether the failure is worth another attempt: the server says so, or it is a status that heals (408, 409, 429, 5xx). */
export function isRetryable(f: AttemptFailure): boolean {
  if (f.kind !== 'status') return true;
  const says = f.headers.get('x-should-retry');
  if (says === 'true') return true;
  if (says === 'false') return false;
  return f.status === 408 || f.status === 409 || f.status === 429 || f.status >= 500;
}

/** The wait a server asked for (`retry-after-ms`, or `retry-after` in seconds or as a date), in ms. */
export function retryAfterMs(headers: { get(name: string): string | null }, now: number): number | undefined {
  const ms = parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(ms)) return Math.max(0, ms);
  const after = headers.get('retry-after');
  if (!after) return undefined;
  const seconds = parseFloat(after);
  if (!Number.isNaN(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff from 0.5 s, at most 8 s, less up to a quarter of jitter. */
export function backoffMs(retry: number, random: number): number {
  return Math.min(0.5 * 2 ** retry, 8) * (1 - random * 0.25) * 1000;
}

/** The longest wait a server's Retry-After is honoured for. */
export const MAX_SERVER_WAIT_MS = 60_000;

/**
 * The wait a server asked for, when it is one to honour. As the openai client: a wait over a minute
 * (a daily quota's "retry in 86400 s") is not waited out, which would leave the run silent for hours;
 * nor is a wait of 0 (or a date already past) taken at its word: every retry at once would spend them all in a moment.
 */
export function honouredWaitMs(headers: { get(name: string): string | null }, now: number): number | undefined {
  const asked = retryAfterMs(headers, now);
  return asked !== undefined && asked > 0 && asked <= MAX_SERVER_WAIT_MS ? asked : undefined;
}

/**
 * How long to wait before retry number `retry` (0-based) after `failure`, or
 * undefined when the request should fail now: not retryable, or out of retries.
 * The wait (a Retry-After, a backoff) is the failed endpoint's: a retry going
 * `elsewhere`, to an endpoint that has not failed this request, goes at once,
 * so one rate-limited or failing replica does not hold a row (and the later
 * turns of its trajectory, which wait for it) while others are free.
 */
export function retryDelay(
  failure: AttemptFailure,
  retry: number,
  maxRetries: number,
  now: number,
  random: number,
  elsewhere = false,
): number | undefined {
  if (retry >= maxRetries || !isRetryable(failure)) return undefined;
  if (elsewhere) return 0;
  // A wait not honoured gets the usual backoff, and the row fails once its retries are spent.
  return (failure.kind === 'status' ? honouredWaitMs(failure.headers, now) : undefined) ?? backoffMs(retry, random);
}

/**
 * The wait a failed attempt asked for that retryDelay does not take (over a minute), in whole
 * seconds, or undefined: a request given up on says so, else a daily quota's 429 reads as a row
 * that failed for no reason, and the user cannot tell that running again later is the cure.
 */
export function unheededWaitS(failure: AttemptFailure, now: number): number | undefined {
  const asked = failure.kind === 'status' ? retryAfterMs(failure.headers, now) : undefined;
  // A wait past any clock (`1e400` reads as Infinity) names no time to come back.
  return asked !== undefined && asked > MAX_SERVER_WAIT_MS && Number.isFinite(asked) ? Math.round(asked / 1000) : undefined;
}

/**
 * Failures in a row that were the same (failureKey), since the last answer: `reason` is the last one's
 * line, for the fault's words.
 */
export interface RefusalStreak {
  key: string;
  reason: string;
  count: number;
}

/** The streak after a failure: one more when it is the same as the streak's, else a new one. */
export function afterRefusal(streak: RefusalStreak | undefined, key: string, reason: string): RefusalStreak {
  return streak?.key === key ? { key, reason, count: streak.count + 1 } : { key, reason, count: 1 };
}

/** As many same refusals as this in a row, before any answer, are the settings' doing (see settingsRefused). */
export const SAME_REFUSALS = 10;

/**
 * Whether a run should stop on its refusals: the endpoint has refused SAME_REFUSALS requests in a
 * row the same way (status, the body's code, type and parameter) and has never answered one with these
 * settings (in this run, or rows already in the output). A refusal that is the row's own (a prompt over
 * the context) does not count (the pool leaves it out); one that is the same for every row (an unknown
 * --extra-body field, `max_tokens` on a model that wants `max_completion_tokens`) would fail the
 * whole run row by row. A server that has answered these settings once refuses rows for their own
 * reasons (a content filter: the same message each time), so those never stop a run.
 */
export function settingsRefused(streak: RefusalStreak | undefined, answered: boolean): boolean {
  return !answered && streak !== undefined && streak.count >= SAME_REFUSALS;
}

/**
 * Whether a request over every endpoint's whole tokens limit stops the run. When the completion budget
 * pushes it over (`promptFits`), or SAME_REFUSALS come in a row before anything was answered (a key whose
 * limit is below the rows' size), every row would be over: the settings'. Otherwise it is the row's own
 * size, as a prompt over the model's context is: that row fails and the run goes on.
 */
export function overLimitStops(promptFits: boolean, streak: RefusalStreak | undefined, answered: boolean): boolean {
  return promptFits || settingsRefused(streak, answered);
}

/**
 * Whether a run should stop on failures its retries would only repeat: SAME_REFUSALS attempts in a
 * row that failed the same way (`streak`, since the last answer). A 500, the same each time before
 * anything was answered, is a parameter or a model name the server chokes on (a gateway's 502–504 or
 * a server still loading heal, and are not counted). A connection cut the same way each time (a
 * proxy's idle limit) stops the run even after answers: those were the requests quick enough to pass.
 */
export function failuresRepeated(streak: RefusalStreak | undefined, answered: boolean, failure: 'status' | 'connection'): boolean {
  return streak !== undefined && streak.count >= SAME_REFUSALS && (failure === 'connection' || !answered);
}
