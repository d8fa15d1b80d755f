import { fail } from '../errors.js';
import { brief } from '../shown.js';
import type { Client } from './http/client.js';
import type { EndpointNotice, EndpointRole, KeySource, SetAside } from './faults.js';
import { PREFLIGHT_TIMEOUT_MS, isListingExcused, listModels, probeModel, type ListingTarget, type Listed } from './listing.js';

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

/** The list as the preflight asks for it: within its own short timeout; undefined once the run is stopping (Ctrl-C during the check). */
async function listed(l: Listing, maxRetries: number): Promise<{ t: ListingTarget; listed?: Listed }> {
  const t = { ...l, timeoutMs: Math.min(l.timeoutMs, PREFLIGHT_TIMEOUT_MS) };
  try {
    return { t, listed: await listModels(t, maxRetries) };
  } catch (err) {
    if (l.stopping.aborted) return { t };
    throw err;
  }
}

/**
 * One endpoint's models check: undefined when it passed with the model listed (or the list said nothing); a
 * model-unlisted notice when the list leaves the model out but a one-token request for it was answered (a server
 * pinned to a model it does not list); when it cannot be reached, the fault that sets it aside (or stops a run with
 * nowhere else to go); thrown when it refused. A server without a models route (404), or answering it with 429 or
 * 5xx, is given the benefit of the doubt.
 */
export async function checkModels(
  l: Listing,
): Promise<SetAside['fault'] | Extract<EndpointNotice, { kind: 'model-unlisted' }> | undefined> {
  const at = { role: l.role, endpoint: l.endpoint };
  const { t, listed: list } = await listed(l, 1);
  if (!list) return undefined;
  if ('fault' in list) {
    const f = list.fault;
    if (f.kind === 'endpoint-silent' || f.kind === 'endpoint-unreachable') return f;
    if (isListingExcused(f)) return undefined;
    throw fail(f);
  }
  if (list.notJson !== undefined) throw fail({ kind: 'models-not-json', ...at, said: brief(list.notJson, l.secrets, 60) });
  const ids = list.ids;
  if (!ids?.length || ids.includes(l.model)) return undefined;
  const probe = await probeModel(t, l.model);
  if (probe.kind === 'answered') return { kind: 'model-unlisted', ...at, model: l.model, listed: ids };
  throw fail({ kind: 'model-not-served', ...at, model: l.model, served: ids, ...(probe.kind === 'refused' && { said: probe.said }) });
}

/**
 * The models an endpoint lists, asked once a chat request was refused as about the model (run without the
 * preflight, or a server whose list did not answer it): the model name is the usual mistake, and the list
 * shows the right one. Undefined when the list does not answer.
 */
export async function servedModels(l: Listing): Promise<string[] | undefined> {
  const { listed: list } = await listed(l, 0);
  return list && !('fault' in list) ? list.ids : undefined;
}
