import { Client, listModels, refusedNames, type ListingTarget } from '../../core/endpoints/index.js';
import { fail } from '../../core/errors.js';
import { brief, shownUrl, splitQuery, urlSecrets } from '../../core/shown.js';
import type { Parsed } from '../shared/option-table.js';
import { printWarnings } from '../shared/notes.js';
import { apiKeyFrom } from '../shared/options.js';
import { noticed } from '../words/index.js';
import { keptKeyNote, modelKeyVariables } from './model-key.js';
import type { MODELS_OPTIONS } from './stage-options.js';
import { terminal } from '../shared/terminal.js';

/**
 * `awb models`: what an endpoint serves, one model id a line on stdout, through the same client, models list and
 * faults as the preflight of infer and judge. Names a server lists but refuses (one pinned to a model lists its
 * whole cache) are marked: the id, a tab, `refused`.
 */
export async function run(opts: Parsed<typeof MODELS_OPTIONS>): Promise<void> {
  const url = opts.baseUrl;
  const { apiKey, key } = apiKeyFrom(opts.apiKey, '--api-key', modelKeyVariables([url]));
  const kept = keptKeyNote([url], opts.apiKey, terminal().env, { command: 'models', option: '--api-key' });
  if (kept) terminal().stderr.write(`${kept}\n`);
  const secrets = [apiKey, ...urlSecrets(url)];
  const { base, query } = splitQuery(url);
  // Quiet as the pool's clients (core/endpoints/pool.ts): no server text or URL query printed by the client itself.
  const client = new Client({ baseURL: base, defaultQuery: query, apiKey, timeout: opts.timeout, maxRetries: 0, logLevel: 'off' });
  const target: ListingTarget = { client, role: 'models', endpoint: shownUrl(url), key, timeoutMs: opts.timeout, secrets };
  const listed = await listModels(target, 1);
  if ('fault' in listed) throw fail(listed.fault);
  if (listed.notJson !== undefined)
    throw fail({ kind: 'models-not-json', role: 'models', endpoint: target.endpoint, said: brief(listed.notJson, secrets, 60) });
  const ids = listed.ids ?? [];
  if (!ids.length) printWarnings([noticed({ kind: 'no-models-listed', role: 'models', endpoint: target.endpoint })]);
  const refused = ids.length ? await refusedNames(target, ids) : undefined;
  for (const id of ids) terminal().stdout.write(`${brief(id, secrets, 1000)}${refused?.refused.includes(id) ? '\trefused' : ''}\n`);
  if (refused)
    printWarnings([noticed({ kind: 'listed-names-refused', role: 'models', endpoint: target.endpoint, listed: ids.length, ...refused })]);
}
