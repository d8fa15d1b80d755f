/*
 * When a failed attempt is tried again, and after how long: pure functions,
 * the same rules as the openai client's own retries (which the pool turns
 * off so that each attempt can go to the endpoint best placed for it).
 */

/** What is known of a failed attempt. */
export type AttemptFailure =
  /** No usable reply: refused, reset, timed out, cut off, too large. */
  | { kind: 'connection' }
  /** A 200 whose body is no chat completion (empty, a web page, cut JSON, no choices): a proxy or server fault that may pass. */
  | { kind: 'malformed' }
  /** An HTTP error status, with the reply's headers. */
  | { kind: 'status'; status: number; headers: { get(name: string): string | null } };

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
const MAX_SERVER_WAIT_MS = 60_000;

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
