/*
 * Which endpoint gets the next request, and when one is set aside: pure
 * functions over plain state, so the policy is tested without a server and a
 * scheduler can reuse it.
 */

export interface Health {
  consecutiveFailures: number;
  /** Epoch ms until which the endpoint gets no new requests; 0 when it is in use. */
  setAsideUntil: number;
  /** How long the next set-aside lasts. */
  cooldownMs: number;
}

export interface HealthPolicy {
  /** Consecutive failed attempts after which an endpoint is set aside (only with several endpoints). */
  setAsideAfter: number;
  /** The first set-aside; each one after it doubles, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_HEALTH: HealthPolicy = { setAsideAfter: 3, cooldownMs: 30_000, maxCooldownMs: 10 * 60_000 };

export function freshHealth(policy: HealthPolicy): Health {
  return { consecutiveFailures: 0, setAsideUntil: 0, cooldownMs: policy.cooldownMs };
}

/** After a failed attempt (5xx, 429, a reset, a timeout). A lone endpoint is never set aside: there is nowhere else to go. */
export function afterFailure(h: Health, policy: HealthPolicy, now: number, endpoints: number): Health {
  const failures = h.consecutiveFailures + 1;
  if (endpoints < 2 || failures < policy.setAsideAfter) return { ...h, consecutiveFailures: failures };
  return setAside(h, policy, now);
}

/** Set aside for its cooldown, which doubles (up to the policy's maximum) for the next time. */
export function setAside(h: Health, policy: HealthPolicy, now: number): Health {
  return { consecutiveFailures: 0, setAsideUntil: now + h.cooldownMs, cooldownMs: Math.min(h.cooldownMs * 2, policy.maxCooldownMs) };
}

/** After an attempt the endpoint answered properly: its record is clean again. */
export function afterSuccess(policy: HealthPolicy): Health {
  return freshHealth(policy);
}

export interface Candidate {
  inFlight: number;
  health: Health;
  /** Its rate limits, when paced: paused until this epoch ms by a 429's wait. */
  limiter?: { readonly pausedUntil: number };
}

/**
 * The endpoint for the next attempt, not among `tried` unless every one has
 * been: the one in use with the fewest requests in flight, among those whose
 * rate limits are not paused when there are any (a request sent to a paused
 * one would wait out its Retry-After while another is free); when all are set
 * aside, the one back soonest, as a probe (its result decides whether it
 * stays aside).
 */
export function pickEndpoint(all: readonly Candidate[], tried: ReadonlySet<number>, now: number): { index: number; probe: boolean } {
  let pool = all.map((_, i) => i).filter((i) => !tried.has(i));
  if (!pool.length) pool = all.map((_, i) => i);
  const inUse = pool.filter((i) => all[i]!.health.setAsideUntil <= now);
  const free = inUse.filter((i) => (all[i]!.limiter?.pausedUntil ?? 0) <= now);
  const choice = free.length ? free : inUse;
  if (choice.length) return { index: choice.reduce((a, b) => (all[b]!.inFlight < all[a]!.inFlight ? b : a)), probe: false };
  return { index: pool.reduce((a, b) => (all[b]!.health.setAsideUntil < all[a]!.health.setAsideUntil ? b : a)), probe: true };
}

/** An endpoint's unbroken run of failed connections (refused, reset, unreachable): no answer of any kind in between. */
export interface ConnectionStreak {
  failures: number;
  /** Epoch ms of the first failure of the run. */
  since: number;
  /** The last failure's cause, for the message that stops the run. */
  cause: string;
}

export interface DeadPolicy {
  /** Failed connections in a row, on every endpoint, before the pool can be declared dead. */
  failures: number;
  /** How long every endpoint must have been failing; a request that spent its retries decides sooner. */
  ms: number;
}

export const DEFAULT_DEAD: DeadPolicy = { failures: 3, ms: 10_000 };

/**
 * Error codes that mean no connection could be made: nothing listens, or the
 * way there is gone. A reset is left out: a live server resets one request too.
 */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function isDeadConnectionCode(code: string | undefined): boolean {
  return code !== undefined && CONNECTION_CODES.has(code);
}

/** After a failed connection; any answer from the server (even a 5xx) ends the streak: the caller drops it. */
export function afterConnectionFailure(s: ConnectionStreak | undefined, now: number, cause: string): ConnectionStreak {
  return { failures: (s?.failures ?? 0) + 1, since: s?.since ?? now, cause };
}

/**
 * Whether the run should stop because no endpoint can be reached: every one
 * has failed to connect at least `failures` times in a row, and either they
 * have all been failing for `ms`, or a request has just spent its retries on
 * it (failing row after row would only repeat that). A server that restarts
 * within the retries never gets here: one answer clears its streak.
 */
export function poolUnreachable(
  streaks: readonly (ConnectionStreak | undefined)[],
  now: number,
  policy: DeadPolicy,
  retriesSpent: boolean,
): boolean {
  if (!streaks.length || streaks.some((s) => !s || s.failures < policy.failures)) return false;
  const newest = Math.max(...streaks.map((s) => s!.since));
  return retriesSpent || now - newest >= policy.ms;
}
