import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { redact } from '../shown.js';
import type { Client } from './http/client.js';
import { accessFault, attemptFailure, causeCode, describeError, isFailureStatus, modelIds } from './classify.js';
import type { EndpointFault, EndpointRole, KeySource } from './faults.js';

/*
 * An endpoint's models list and the one-token requests that test a name on it: what the
 * preflight checks before a run, and what `awb models` shows.
 */

/** The models check is a small request: a server that takes longer to answer it is stuck, not busy. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

/** Where a list is asked for: the endpoint's client, as faults name it, its key's source, and the secrets no fault may show. */
export interface ListingTarget {
  client: Client;
  endpoint: string;
  role: EndpointRole;
  key?: KeySource;
  timeoutMs: number;
  secrets: readonly string[];
  stopping?: AbortSignal;
}

/** What a models list gave: its ids (undefined: JSON without a `data` list), or a page that is no JSON (`notJson`, its start). */
export type Listed = { ids?: string[]; notJson?: string } | { fault: EndpointFault };

/** `GET /models`, the route itself rather than `models.list()`'s page: a list that is no JSON, or has no `data`, is named as it came. */
export async function listModels(t: ListingTarget, maxRetries: number): Promise<Listed> {
  const at = { role: t.role, endpoint: t.endpoint };
  let body: unknown;
  try {
    body = await t.client.get('/models', { maxRetries, timeout: t.timeoutMs, ...(t.stopping && { signal: t.stopping }) });
  } catch (err) {
    if (t.stopping?.aborted) throw err;
    return { fault: listingFault(err, at, (e) => describeError(e, t.timeoutMs, t.secrets), t.key, t.timeoutMs) };
  }
  const { ids, notJson } = modelIds(body);
  if (notJson) return { notJson: String(body) };
  return ids ? { ids: ids.map((id) => redact(id, t.secrets)) } : {};
}

/**
 * Why a models list failed, as a fault: a connection or silence (endpoint-unreachable, endpoint-silent), no such
 * route (404, 405), a key, access or quota refusal, or any other failure (models-check-failed, with its status).
 */
function listingFault(
  err: unknown,
  at: { role: EndpointRole; endpoint: string },
  said: (err: unknown) => string,
  key: KeySource | undefined,
  timeoutMs: number,
): EndpointFault {
  if (err instanceof APIConnectionTimeoutError) return { kind: 'endpoint-silent', ...at, seconds: timeoutMs / 1000 };
  if (err instanceof APIConnectionError) {
    const code = causeCode(err);
    return { kind: 'endpoint-unreachable', ...at, ...(code !== undefined && { code }) };
  }
  if (!(err instanceof APIError)) return { kind: 'models-check-failed', ...at, said: said(err) };
  if (err.status === 404 || err.status === 405) return { kind: 'models-route-missing', ...at, status: err.status };
  return accessFault(err, at, () => said(err), key) ?? { kind: 'models-check-failed', ...at, said: said(err), status: err.status };
}

/** A list failure that says nothing against the endpoint: no models route, or one busy or failing at the moment (429, 5xx). */
export function isListingExcused(f: EndpointFault): boolean {
  return f.kind === 'models-route-missing' || (f.kind === 'models-check-failed' && f.status !== undefined && isFailureStatus(f.status));
}

/** A one-token request's outcome: answered, refused as about the model (`said`: the server's reason), or failed otherwise. */
export type Probe = { kind: 'answered' } | { kind: 'refused'; status: number; said: string } | { kind: 'failed' };

/** One one-token request for `model`: only a completion says the endpoint answers to the name. */
export async function probeModel(t: ListingTarget, model: string): Promise<Probe> {
  try {
    await t.client.chat.completions.create(
      { model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1 },
      { maxRetries: 0, timeout: t.timeoutMs, ...(t.stopping && { signal: t.stopping }) },
    );
    return { kind: 'answered' };
  } catch (err) {
    const failure = attemptFailure(err, model);
    if (failure?.kind !== 'status' || failure.refusal.about !== 'model') return { kind: 'failed' };
    return { kind: 'refused', status: failure.status, said: describeError(err, t.timeoutMs, t.secrets) };
  }
}

/** How many listed names `awb models` tries at most, and how many at once. */
const MOST_PROBED = 64;
const PROBES_AT_ONCE = 4;

/**
 * The listed names a server refuses, when it refuses names as a server pinned to one model does: `transformers
 * serve MODEL` lists every model in the Hub cache and answers another name with a 400. A made-up name tells the
 * kind of server first: a 404 (vLLM, OpenAI: the list is what it serves), an answer (SGLang, llama.cpp: any name
 * goes) or a failure leave the list as it is; a 400 or 422 about the model makes each listed name tried once
 * (a refusal costs nothing; the pinned one answers one token). Undefined when the names were not tried.
 */
export async function refusedNames(t: ListingTarget, ids: readonly string[]): Promise<{ refused: string[]; said: string } | undefined> {
  const madeUp = await probeModel(t, 'awb-no-such-model');
  if (madeUp.kind !== 'refused' || madeUp.status === 404 || ids.length > MOST_PROBED) return undefined;
  const outcomes = new Map<string, Probe>();
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: PROBES_AT_ONCE }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) outcomes.set(id, await probeModel(t, id));
    }),
  );
  const refused = ids.filter((id) => outcomes.get(id)?.kind === 'refused');
  const first = outcomes.get(refused[0]!);
  return refused.length ? { refused, said: first?.kind === 'refused' ? first.said : madeUp.said } : undefined;
}
