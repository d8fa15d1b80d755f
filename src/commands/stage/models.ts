import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { Client, modelIds } from '../../core/endpoints/index.js';
import { UserError } from '../../core/errors.js';
import { brief, shownUrl, splitQuery, urlSecrets, visible } from '../../core/shown.js';
import type { Parsed } from '../shared/option-table.js';
import { apiKeyFrom } from '../shared/options.js';
import { keyHelp, unreachableHint } from '../words/stage/endpoints.js';
import { keptKeyNote, modelKeyVariables } from './model-key.js';
import type { MODELS_OPTIONS } from './stage-options.js';
import { terminal } from '../shared/terminal.js';

/** `awb models`: what an endpoint serves, one model id a line on stdout, through the same client infer and judge use. */
export async function run(opts: Parsed<typeof MODELS_OPTIONS>): Promise<void> {
  const url = opts.baseUrl;
  const { apiKey, key } = apiKeyFrom(opts.apiKey, '--api-key', modelKeyVariables([url]));
  const kept = keptKeyNote([url], opts.apiKey, terminal().env, { command: 'models', option: '--api-key' });
  if (kept) terminal().stderr.write(`${kept}\n`);
  const secrets = [apiKey, ...urlSecrets(url)];
  const { base, query } = splitQuery(url);
  // Quiet as the pool's clients (core/endpoints/pool.ts): no server text or URL query printed by the client itself.
  const client = new Client({ baseURL: base, defaultQuery: query, apiKey, timeout: opts.timeout, maxRetries: 1, logLevel: 'off' });
  const where = `endpoint ${shownUrl(url)}`;
  let body: unknown;
  try {
    body = await client.get('/models');
  } catch (err) {
    if (err instanceof APIConnectionTimeoutError) throw new UserError(`${where} did not answer within ${opts.timeout / 1000} s`, 3);
    if (err instanceof APIConnectionError) {
      const code = systemCode(err);
      throw new UserError(`cannot reach ${where}${code === undefined ? '' : ` (${visible(code)})`}: ${unreachableHint(url, code)}`, 3);
    }
    if (err instanceof APIError && err.status === 401)
      throw new UserError(`${where} rejected the API key (401 Unauthorized): ${keyHelp(key)}`, 3);
    if (err instanceof APIError && err.status === 404) {
      throw new UserError(`${where} has no models route (404): is the URL right (it usually ends in /v1)?`, 3);
    }
    throw new UserError(`${where} failed to list its models: ${brief(err instanceof Error ? err.message : String(err), secrets)}`, 3);
  }
  const { ids, notJson } = modelIds(body);
  if (notJson) {
    throw new UserError(
      `${where} answered with something other than JSON ("${brief(String(body), secrets, 60)}"): is it an OpenAI-compatible server, and does the URL end in /v1?`,
      3,
    );
  }
  if (!ids?.length) terminal().stderr.write(`${where} lists no models\n`);
  for (const id of ids ?? []) terminal().stdout.write(`${brief(id, secrets, 1000)}\n`);
}

/** The system error code (ECONNREFUSED, ...) somewhere down an error's causes: fetch wraps it in a TypeError. */
function systemCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
