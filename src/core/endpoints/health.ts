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
  return { consecutiveFailures: 0, setAsideUntil: now + h.cooldownMs, cooldownMs: Math.min(h.cooldownMs * 2, policy.maxCooldownMs) };
}

/** After an attempt the endpoint answered properly: its record is clean again. */
export function afterSuccess(policy: HealthPolicy): Health {
  return freshHealth(policy);
}

export interface Candidate {
  inFlight: number;
  health: Health;
}

/**
 * The endpoint for the next attempt, not among `tried` unless every one has
 * been: the one in use with the fewest requests in flight; when all are set
 * aside, the one back soonest, as a probe (its result decides whether it
 * stays aside).
 */
export function pickEndpoint(all: readonly Candidate[], tried: ReadonlySet<number>, now: number): { index: number; probe: boolean } {
  let pool = all.map((_, i) => i).filter((i) => !tried.has(i));
  if (!pool.length) pool = all.map((_, i) => i);
  const inUse = pool.filter((i) => all[i]!.health.setAsideUntil <= now);
  if (inUse.length) return { index: inUse.reduce((a, b) => (all[b]!.inFlight < all[a]!.inFlight ? b : a)), probe: false };
  return { index: pool.reduce((a, b) => (all[b]!.health.setAsideUntil < all[a]!.health.setAsideUntil ? b : a)), probe: true };
}
