import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { fail } from '../errors.js';
import { brief, redact } from '../shown.js';
import type { Client } from './http/client.js';
import { causeCode, describeError, isFailureStatus, modelIds, refusalFault } from './classify.js';
import type { EndpointRole, KeySource, SetAside } from './faults.js';

/** The models check is a small request: a server that takes longer to answer it is stuck, not busy. */
export const PREFLIGHT_TIMEOUT_MS = 10_000;

/** What the models check needs of the pool: the endpoint, the run's settings, and the signal of the run stopping. */
export interface Listing {
  client: Client;
  endpoint: string;
  role: EndpointRole;
  model: string;
  key?: KeySource;
  timeoutMs: number;
  secrets: readonly string[];
  stopping: AbortSignal;
}

/**
 * One endpoint's models check: undefined when it passed (the model listed, or answered though left out); when it cannot be reached, the fault that
 * sets it aside (or stops a run with nowhere else to go); thrown when it refused. A server without a
 * models route (404), or answering it with 429 or 5xx, is given the benefit of the doubt.
 */
export async function checkModels(l: Listing): Promise<SetAside['fault'] | undefined> {
  const preflightMs = Math.min(l.timeoutMs, PREFLIGHT_TIMEOUT_MS);
  const at = { role: l.role, endpoint: l.endpoint };
  const said = (err: unknown) => describeError(err, l.timeoutMs, l.secrets);
  let body: unknown;
  try {
    // The route itself, not `models.list()`'s page: a list that is no JSON, or has no `data`, is named here as it came.
    body = await l.client.get('/models', { maxRetries: 1, timeout: preflightMs, signal: l.stopping });
  } catch (err) {
    // Ctrl-C during the check: nothing will be sent, and the run ends as interrupted, not as a dead endpoint.
    if (l.stopping.aborted) return undefined;
    if (err instanceof APIConnectionTimeoutError) return { kind: 'endpoint-silent', ...at, seconds: preflightMs / 1000 };
    if (err instanceof APIConnectionError) {
      const code = causeCode(err);
      return { kind: 'endpoint-unreachable', ...at, ...(code !== undefined && { code }) };
    }
    // No models route, or one busy or failing at the moment (429, 5xx): the rows' own retries will wait for it.
    if (err instanceof APIError && (err.status === 404 || err.status === 405 || isFailureStatus(err.status))) return undefined;
    throw fail(
      refusalFault(err, { ...at, model: l.model, ...(l.key && { key: l.key }) }, () => said(err)) ?? {
        kind: 'models-check-failed',
        ...at,
        said: said(err),
      },
    );
  }
  const { ids, notJson } = modelIds(body);
  if (notJson) throw fail({ kind: 'models-not-json', ...at, said: brief(String(body), l.secrets, 60) });
  if (ids?.length && !ids.includes(l.model) && !(await answersModel(l, preflightMs))) {
    throw fail({ kind: 'model-not-served', ...at, model: l.model, served: shownIds(ids, l.secrets) });
  }
  return undefined;
}

/**
 * Whether the endpoint answers a one-token request for the model its list leaves out: a server
 * pinned to one model (`transformers serve /local/path`, llama.cpp) lists what it could load, or a
 * cache, not the name it answers to. Only a completion says yes.
 */
async function answersModel(l: Listing, timeout: number): Promise<boolean> {
  try {
    await l.client.chat.completions.create(
      { model: l.model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1 },
      { maxRetries: 0, timeout, signal: l.stopping },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * The models an endpoint lists, asked once a chat request got a 404 (run without the preflight,
 * or a server whose list did not answer it): the model name is the usual mistake, and the list
 * shows the right one. Undefined when the list does not answer.
 */
export async function servedModels(l: Listing): Promise<string[] | undefined> {
  try {
    const body = await l.client.get('/models', { maxRetries: 0, timeout: Math.min(l.timeoutMs, PREFLIGHT_TIMEOUT_MS), signal: l.stopping });
    const { ids } = modelIds(body);
    return ids && shownIds(ids, l.secrets);
  } catch {
    return undefined;
  }
}

/** Model ids as a fault may carry them: a server that echoes the key into its list does not show it. */
function shownIds(ids: readonly string[], secrets: readonly string[]): string[] {
  return ids.map((id) => redact(id, secrets));
}
