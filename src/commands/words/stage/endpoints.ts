import type { EndpointFault, EndpointNotice, EndpointRole, KeySource, SetAside } from '../../../core/endpoints/index.js';
import { brief, visible } from '../../../core/shown.js';
import { budgetFix, settingsFix } from './settings-fix.js';
import { EXIT, type NoticeWords, type Words } from '../words.js';

/** An endpoint as the messages name it: "judge endpoint http://…/v1" (the one `awb models` lists: "endpoint http://…/v1"). */
function where(f: { role: EndpointRole; endpoint: string }): string {
  return f.role === 'models' ? `endpoint ${f.endpoint}` : `${f.role} endpoint ${f.endpoint}`;
}

const fatal = (message: string) => ({ message, exit: EXIT.endpoint });

/** What to do about a rejected key, naming where it came from. */
function keyHelp(k: KeySource): string {
  if (k.from === 'option') return `check the key given with ${k.option}`;
  if (k.from === 'env') return `check the key in $${k.variable}, or pass another with ${k.option}`;
  const empty = k.emptyVariables;
  const why = k.emptyOption
    ? ` (${k.option} is empty)`
    : empty.length
      ? ` (${empty.map((n) => `$${n}`).join(' and ')} ${empty.length > 1 ? 'are' : 'is'} set but empty)`
      : '';
  return `no key was given${why}: set ${k.variables.join(' or ')}, or pass ${k.option} KEY`;
}

/**
 * What to check when an endpoint cannot be reached: a TLS failure on an
 * https URL is most often a plain-HTTP server (vLLM, SGLang serve http).
 */
function unreachableHint(url: string, code: string | undefined): string {
  if (url.startsWith('https:') && code !== undefined && (code === 'EPROTO' || code.startsWith('ERR_SSL_'))) {
    return 'the server does not speak TLS: is it a plain HTTP server (http://, not https://)?';
  }
  return 'is the server running and the URL right (it usually ends in /v1)?';
}

/** Model ids as one line: the first eight, and how many in all. */
function shownModels(ids: readonly string[]): string {
  return brief(ids.slice(0, 8).join(', '), [], 1000) + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
}

/** The option that names the model of a role's endpoint. */
function modelOption(role: EndpointRole): string {
  return role === 'judge' ? '--judge-model' : '--model-name';
}

/** What to do about a model name the endpoint does not take: the option that gives the one it serves. */
function nameFix(role: EndpointRole): string {
  return `give the name it serves with ${modelOption(role)}`;
}

/** Why the preflight could not use an endpoint, as the start of a line. */
function unusable(f: SetAside['fault']): string {
  return f.kind === 'endpoint-silent'
    ? `${where(f)} did not answer the models check within ${f.seconds} s`
    : `cannot reach ${where(f)}${f.code ? ` (${visible(f.code)})` : ''}`;
}

/** Each endpoint notice as a warning line. */
export const ENDPOINT_NOTICES: NoticeWords<EndpointNotice> = {
  'endpoint-set-aside': (w: SetAside) =>
    `${unusable(w.fault)}: set aside, the run goes on with the other ${w.left === 1 ? 'endpoint' : `${w.left} endpoints`} and tries it again later`,
  'model-unlisted': (n) =>
    `${where(n)} does not list model "${visible(n.model)}" (it lists ${shownModels(n.listed)}) but answered a one-token request for it: the run goes on with it (a server pinned to one model, as transformers serve and llama.cpp can be, lists what it could load rather than the name it answers to)`,
  'replies-abandoned': (n) =>
    `${n.count === 1 ? '1 whole reply was' : `${n.count} whole replies were`} given up on under way: a ${n.role} server that does not notice a closed connection (transformers serve) may go on generating ${n.count === 1 ? 'it' : 'them'}, up to --max-tokens each; with --stream awb stops them as it goes`,
  'malformed-replies-retried': (n) =>
    `${n.count === 1 ? '1 reply' : `${n.count} replies`} of the ${n.role} endpoint ${n.count === 1 ? 'was' : 'were'} no chat completion (JSON or a stream cut short, a proxy's page, a generation the server aborted) and ${n.count === 1 ? 'was' : 'were'} asked again, within --max-retries: the rows hold the answers that came whole; many of them point to a proxy or server in trouble`,
  'usage-lost': (n) =>
    `${n.count === 1 ? '1 stream' : `${n.count} streams`} stalled or broke after the finish reason, before the usage chunk: ` +
    `${n.count === 1 ? 'its answer was' : 'their answers were'} kept, without token usage (not in the token counts)`,
  'asked-online': (n) => {
    const one = n.count === 1;
    return `${one ? '1 request was' : `${n.count} requests were`} not in the batches' results (${one ? 'its row' : 'their rows'} changed or new since the batch was submitted, or the batch left ${one ? 'it' : 'them'} out or returned ${one ? 'it' : 'them'} unreadable): asked online, at the online price`;
  },
  'no-models-listed': (n) => `${where(n)} lists no models`,
  'listed-names-refused': (n) =>
    `${where(n)} refuses ${n.refused.length} of the ${n.listed} names it lists (marked "refused"): a server pinned to one model (transformers serve MODEL) lists its whole cache; it said: ${n.said}`,
};

const KEPT = 'The rows done so far are kept';

export const ENDPOINT_WORDS: Words<EndpointFault> = {
  'request-over-token-limit': (f) => {
    const fix = f.promptFits
      ? `its prompt is about ${f.promptTokens}, and the server counts all of --max-tokens against the limit too: lower --max-tokens, or use a key with a higher limit (a higher tier)`
      : `its prompt alone is about ${f.promptTokens}: use a key with a higher limit (a higher tier), or leave out rows this large`;
    return fatal(
      `endpoint ${f.endpoint} allows ${f.limit} tokens per minute (x-ratelimit-limit-tokens) and a request counts about ${f.tokens}: no wait makes room for it; ${fix}. ${KEPT}; once fixed, run the same command again`,
    );
  },
  'key-rejected': (f) => fatal(`${where(f)} rejected the API key (401 Unauthorized)${f.key ? `: ${keyHelp(f.key)}` : ''}`),
  'access-refused': (f) => fatal(`${where(f)} refused access (403 Forbidden): ${f.said}`),
  'no-quota': (f) => fatal(`${where(f)} says the account has no quota left (429 insufficient_quota): ${f.said}`),
  'unknown-model': (f) => {
    const model = `model "${visible(f.model)}"`;
    if (f.served)
      return fatal(`${where(f)} does not know ${model} (${f.status}): ${f.said}; it serves: ${shownModels(f.served)}; ${nameFix(f.role)}`);
    if (f.status === 404)
      return fatal(
        `${where(f)} does not know ${model} or the chat completions route (404): ${f.said}; is the model name right (${modelOption(f.role)}), and does the URL end in /v1?`,
      );
    return fatal(`${where(f)} does not know ${model} (${f.status}): ${f.said}; ${nameFix(f.role)}`);
  },
  'model-not-served': (f) =>
    fatal(
      `${where(f)} does not serve model "${visible(f.model)}"${f.said ? ` (a one-token request for it was refused: ${f.said})` : ''}; it lists: ${shownModels(f.served)}; ${nameFix(f.role)}`,
    ),
  'models-not-json': (f) =>
    fatal(
      `${where(f)} answered the models check with something other than JSON ("${f.said}"): is it an OpenAI-compatible server, and does the URL end in /v1?`,
    ),
  'models-route-missing': (f) => fatal(`${where(f)} has no models route (${f.status}): is the URL right (it usually ends in /v1)?`),
  'models-check-failed': (f) => fatal(`${where(f)} failed the models check: ${f.said}`),
  'endpoint-unreachable': (f) => fatal(`${unusable(f)}: ${unreachableHint(f.endpoint, f.code)}`),
  'endpoint-silent': (f) =>
    fatal(
      `${where(f)} accepted the connection but did not answer the models check within ${f.seconds} s (tried twice): is it overloaded, stuck or still loading?${f.role === 'models' ? '' : ' (--no-preflight skips this check)'}`,
    ),
  'endpoints-dead': (f) =>
    fatal(
      `${f.several ? `every ${f.role} endpoint` : where(f)} keeps failing to connect (${f.causes.join(', ')}, for ${f.seconds} s): is the server still running? Finished rows are saved; run the same command again once it is back`,
    ),
  'settings-refused': (f) =>
    fatal(
      `${where(f)} refused ${f.count} requests in a row with the same error and answered none: ${f.reason}; ` +
        (settingsFix(f.setting, f.sent) ??
          'the same refusal for every row comes from the settings sent with each request (--max-tokens, --temperature, --extra-body, …), not the rows: fix them and run the same command again'),
    ),
  'budget-over-context': (f) =>
    fatal(
      `${where(f)} refused ${f.count} requests in a row and answered none, each over the model's context for its completion budget: ${f.reason}; ${budgetFix(f.over, f.sent)}`,
    ),
  'failures-repeated': (f) => {
    if (f.failure === 'status')
      return fatal(
        `${where(f)} failed ${f.count} requests in a row with the same server error and answered none: ${f.reason}; a server error the same for every request is most often a setting it cannot handle (--max-tokens, --temperature, --extra-body) or a model name it does not serve (${modelOption(f.role)}): check the server's log, fix it and run the same command again. ${KEPT}`,
      );
    const fix = f.stream
      ? 'even streamed, so the server sends nothing for longer than something in between (a proxy, a load balancer) lets a connection idle: raise its idle timeout, or lower -c so that the server answers sooner'
      : 'something in between (a proxy, a load balancer) most often cuts a connection idle for a while, and a whole reply sends nothing until it is done: run the same command again with --stream, which keeps the connection busy with tokens as they come, or raise its idle timeout';
    return fatal(`the connection to ${where(f)} was cut ${f.count} times in a row before a reply came (${f.reason}); ${fix}. ${KEPT}`);
  },
  'batch-unreachable': (f) => fatal(`cannot reach batch endpoint ${f.endpoint}: ${f.said}`),
  'batch-unsupported': (f) =>
    fatal(
      `batch endpoint ${f.endpoint} does not offer the Batch API (${f.status}: ${f.said}); OpenAI and LiteLLM's proxy do, \`vllm serve\` does not: run without --batch`,
    ),
  'batch-failed': (f) => fatal(`batch endpoint ${f.endpoint} failed: ${f.said}`),
  'batch-state-elsewhere': (f) =>
    `${f.path} records batches for ${visible(f.recorded.model)} at ${visible(f.recorded.endpoint)}, not ${f.given.model} at ${f.given.endpoint}; ` +
    'finish that run with its own settings, or remove the file to start over',
  'batch-settings-changed': (f) =>
    `${f.path} records batches whose requests were made with other settings (${visible(f.differences.join('; '))}); ` +
    'run the command that submitted them to collect them, or remove the file to start over (batches already submitted are billed)',
  'batch-request-too-large': (f) =>
    `the request for ${f.what} (${f.bytes} bytes) is larger than a batch file may be (${f.limit} bytes): raise --batch-max-mb, or run without --batch`,
  'batch-failed-whole': (f) =>
    fatal(
      `batch ${visible(f.id)} failed as a whole, none of its ${f.lines} requests ran: ${f.why} (${f.file}; run the same command to submit it again)`,
    ),
  'batch-not-found': (f) =>
    fatal(
      `batch endpoint ${f.endpoint} has no batch ${visible(f.id)} (404): was it made with another API key's project, or removed? ` +
        `Use that key to collect it, or remove ${f.path} to submit the requests anew (batches already submitted are billed)`,
    ),
  'batch-results-unreadable': (f) =>
    fatal(
      `${f.path}:${f.line}: ${f.field !== undefined ? `not a batch result line: ${f.field}: ${f.problem}` : "the batch endpoint's results are not JSONL (this line is not a JSON object)"}; remove ${f.path} and run the same command to download it again`,
    ),
};
