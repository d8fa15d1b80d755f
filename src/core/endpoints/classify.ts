import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { brief } from '../shown.js';
import type { BudgetOverContext, EndpointFault, EndpointRole, KeySource, RefusedSetting } from './faults.js';
import { replyCause, replyFault } from './http/http-fetch.js';
import type { AttemptFailure, NetworkCause, Refusal } from './retry.js';

/*
 * What a reply or an error is: a chat completion or not, a failed attempt the
 * retry policy knows, a refusal that would repeat for every row (as a fault),
 * and an error as the one line a row records.
 */

/** A 200 whose body is not a chat completion. */
export class MalformedReplyError extends Error {
  override name = 'MalformedReplyError';
}

/**
 * Thrown by `chat` instead of an attempt once the run is stopping (Ctrl-C): a row whose request waits for
 * a retry or a re-ask is left for the next run, as one never sent, rather than keeping the stop waiting.
 */
export class StoppedError extends Error {
  override name = 'StoppedError';
}

/** Whether a failed ask was the run ending (Ctrl-C), not the endpoint: the row is left for the next run. */
export function isStopped(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof StoppedError;
}

/** A streamed reply that stalled, broke or outlasted the timeout after it began: a failed attempt, and why (`failure`). */
export class StreamFailure extends Error {
  override name = 'StreamFailure';
  constructor(
    readonly failure: AttemptFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A request that failed for good, its retries spent or none possible, as data: why its last attempt
 * failed (`failure`, or a request over every endpoint's whole tokens limit), and the wait over a
 * minute a server asked for, which awb does not take (`askedWaitS`). Its message is the row's record.
 */
export class RequestFailed extends Error {
  override name = 'RequestFailed';
  constructor(
    readonly failure: AttemptFailure | { kind: 'over-token-limit'; tokens: number; limit: number; endpoint: string },
    message: string,
    readonly askedWaitS?: number,
  ) {
    super(message);
  }
}

/**
 * What keeps a reply body from being a chat completion awb can record, or undefined when it is one,
 * whichever route it came by. An empty `choices` list carries no answer at all, not an empty one; a
 * choice without a message, or whose text fields are not text (`content: 42`), is no answer either,
 * nor is a generation the server aborted: each is a malformed reply, asked again, never written into a row as it came.
 */
export function replyProblem(body: unknown, secrets: readonly string[] = []): string | undefined {
  // The client hands on a body that is not JSON as its text; its start says what answered (a web page, a proxy).
  if (typeof body === 'string') return `a reply that is not JSON: "${brief(body, secrets, 60)}"`;
  const { choices, error } = typeof body === 'object' && body !== null ? (body as { choices?: unknown; error?: unknown }) : {};
  if (!Array.isArray(choices) || choices.length === 0) {
    // Some gateways (OpenRouter) send an upstream failure as a 200 whose body is an error: its reason is the one to show.
    const said = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error;
    return typeof said === 'string' ? `an error instead of a completion: ${brief(said, secrets)}` : 'a reply without choices';
  }
  const choice: unknown = choices[0];
  const message = typeof choice === 'object' && choice !== null ? (choice as { message?: unknown }).message : undefined;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return 'a choice without a message';
  const fields: Record<string, unknown> = { ...message, finish_reason: (choice as { finish_reason?: unknown }).finish_reason };
  for (const name of ['content', 'reasoning_content', 'reasoning', 'finish_reason']) {
    const value = fields[name];
    if (value !== undefined && value !== null && typeof value !== 'string') return `a choice whose ${name} is not text`;
  }
  // SGLang (and some vLLM versions) end a generation they aborted so, its content partial or empty: it was never finished.
  if (fields.finish_reason === 'abort') return 'an aborted generation (finish_reason "abort")';
  return undefined;
}

/**
 * A reply body as JSON: the client parses a body only when its content type says JSON and hands on
 * any other as text, but a hand-written server or a proxy may send JSON as text/plain, or with no
 * type at all. Text that is not JSON stays text (a web page), for the caller to name.
 */
export function jsonOfText(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

export function isChatCompletion(body: unknown): body is ChatCompletion {
  return replyProblem(body) === undefined;
}

/**
 * What a models list (`GET /models`) names: its model ids, or `notJson` for a page that is not JSON (a
 * body is read as JSON when it is, whatever its content type); `ids` is undefined for JSON without a
 * `data` list.
 */
export function modelIds(body: unknown): { ids?: string[]; notJson?: true } {
  const value = jsonOfText(body);
  if (typeof value === 'string') return { notJson: true };
  const data = typeof value === 'object' && value !== null ? (value as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return {};
  return {
    ids: data.flatMap((m: unknown) => {
      const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
      return typeof id === 'string' ? [id] : [];
    }),
  };
}

/** awb's own reasons for giving up on a reply (http-fetch.ts) as network causes; a stall is a timeout instead. */
const REPLY_CAUSES = { 'too-large': 'reply-too-large', undecodable: 'reply-undecodable', closed: 'reply-cut' } as const;

/**
 * A failed request as data for the retry policy and the streaks (retry.ts): a connection that failed and
 * why, a timeout and which, or a status with what its body says of itself; undefined for any other error.
 * `model`: the model asked for, which a refusal about it names.
 */
export function attemptFailure(err: unknown, model?: string): AttemptFailure | undefined {
  if (err instanceof StreamFailure) return err.failure;
  if (err instanceof APIConnectionTimeoutError) return { kind: 'timeout', timeout: 'request' };
  if (err instanceof APIError && !(err instanceof APIConnectionError) && err.status !== undefined)
    return { kind: 'status', status: err.status, headers: err.headers ?? new Headers(), refusal: refusalOf(err, model) };
  const reply = replyCause(err) ?? replyCause(err instanceof Error ? err.cause : undefined);
  if (reply === 'stalled') return { kind: 'timeout', timeout: 'idle' };
  if (reply) return { kind: 'connection', cause: REPLY_CAUSES[reply] };
  if (err instanceof APIConnectionError) return { kind: 'connection', cause: causeCode(err) ?? 'unknown' };
  return undefined;
}

/** The codes servers give a prompt over the model's context: OpenAI's, llama.cpp's. */
const CONTEXT_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error']);
/** The parameter vLLM names in its refusals of a prompt over the context (VLLMValidationError's `parameter`). */
const CONTEXT_PARAM = 'input_tokens';

/**
 * What an error status's body says of itself, and what the refusal is about. Status and structure first: OpenAI's
 * `model_not_found` or a `param`/`loc` naming the model field; a context code, or vLLM's `input_tokens` parameter; a
 * 404 (vLLM's unknown model, or no such route). The server's words last (serverWording), for a 400 or 422 whose
 * body gives no code that says it.
 */
export function refusalOf(err: APIError, model?: string): Refusal {
  const field = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const [code, type, param] = [field(err.code), field(err.type), field(err.param)];
  const fields = { ...(code && { code }), ...(type && { type }), ...(param && { param }) };
  const words = serverWording(serverSaid(err), model);
  const about = refusalAbout(err.status ?? 0, fields, words);
  // A budget over the context is ended by a smaller --max-tokens, not by leaving the field out (refusedSetting's fix).
  if (about === 'budget' && words.budget) return { ...fields, about, over: words.budget };
  const setting = refusedSetting(fields, words.setting);
  return { ...fields, about, ...(setting && { setting }) };
}

/**
 * The server's own words in an error body, as the client keeps them (`err.error`): OpenAI's `error.message`, and, as
 * client.ts reads them, SGLang's and older vLLM's top-level `message` and FastAPI's `detail`. Never `err.message`,
 * which the client composes (the status first, "status code (no body)") and which holds awb's gist of a web page.
 */
function serverSaid(err: APIError): string {
  const error: unknown = err.error;
  if (typeof error === 'string') return error;
  const said = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof said === 'string' ? said : '';
}

/**
 * A prompt over the context as servers word it, for bodies without a code that says so:
 * - vLLM's API server (serving_engine.py, renderers/params.py): "This model's maximum context length is M tokens.
 *   However, you requested N tokens (…)", "… However, you requested O output tokens and your prompt contains at least
 *   I input tokens, for a total of at least T tokens.", "… However, your request has I input tokens.";
 * - vLLM's engine (v1/engine/processor.py, input_processor.py), which a prompt the API server let through reaches:
 *   "The decoder prompt (length N) is longer than the maximum model length of M.";
 * - SGLang (managers/tokenizer_manager.py, _validate_one_request): "The input (N tokens) is longer than the model's
 *   context length (M tokens).", "Requested token count exceeds the model's maximum context length of M tokens.";
 * - llama.cpp (server.cpp): "the request exceeds the available context size, try increasing it";
 * - transformers and others: "… too long …".
 */
const CONTEXT_WORDING =
  /context (length|window|size)|maximum context|longer than the maximum model length|too many tokens|(prompt|input|request) is too long/i;

/** Words of a refusal about a setting, even when it names the model ("max_tokens is too large for model X"). */
const SETTING_WORDING = /token|temperature|top_p|context|length|parameter|argument/i;

/** The codes and types servers give a field they do not take: OpenAI's, pydantic's (FastAPI servers). */
const UNSUPPORTED_CODES = new Set(['unsupported_parameter', 'unsupported_value', 'extra_forbidden']);
/**
 * A budget field refused, as servers without such a code word it: vLLM names both ("'max_tokens' or
 * 'max_completion_tokens' is too large"), proxies name the field beside the words.
 */
const BUDGET_NAMES_BOTH = /'max_tokens'.*'max_completion_tokens'/;
const COMPLETION_BUDGET_UNSUPPORTED =
  /max_completion_tokens.{0,80}(unsupported|not supported|unrecognized|unknown|extra|not permitted)|(unsupported|unrecognized|unknown|extra).{0,80}max_completion_tokens/i;
/** OpenAI names the one temperature its reasoning models take only in its words: "Only the default (1) value is supported". */
const ONLY_DEFAULT_TEMPERATURE = /'temperature'.*only the default \((\d+(?:\.\d+)?)\) value is supported/i;

/**
 * A request the completion budget pushes over the context, as servers give its numbers (M the context, I the prompt's tokens, O
 * the budget); each phrase says when the prompt alone fits, or when the budget alone leaves no room for any prompt:
 * - vLLM before its renderers (serving_engine.py), and OpenAI: "This model's maximum context length is M tokens. However, you
 *   requested T tokens (I in the messages, O in the completion)." (I exact: over only for the budget when I < M);
 * - vLLM (renderers/params.py): "… However, you requested O output tokens and your prompt contains [at least] I input tokens, for
 *   a total of [at least] T tokens." ("at least": the prompt was cut at M - O + 1 tokens, so only O >= M proves it);
 * - vLLM (serving_engine.py): "'max_tokens' or 'max_completion_tokens' is too large: O. This model's maximum context length is
 *   M tokens and your request has I input tokens (O > M - I)." (I exact);
 * - vLLM (renderers/params.py, TokenizeParams): "You passed N input tokens|characters and requested O output tokens. However, the
 *   model's context length is only M tokens, …" (N cut short: only O >= M proves it), and "max_tokens=Ocannot be greater than
 *   max_model_len=max_total_tokens=M" (O > M);
 * - SGLang (managers/tokenizer_manager.py, _validate_one_request): "Requested token count exceeds the model's maximum context
 *   length of M tokens. You requested a total of T tokens: I tokens from the input messages and O tokens for the completion.",
 *   said only once the input alone fits ("The input (I tokens) is longer than …" is checked first).
 * Numbers are at most 12 digits, each phrase anchored on its words: one pass over the text.
 */
const VLLM_IN_MESSAGES =
  /maximum context length is (\d{1,12}) tokens\. However, you requested \d{1,12} tokens \((\d{1,12}) in the messages, (\d{1,12}) in the completion\)/;
const VLLM_OUTPUT_TOKENS =
  /maximum context length is (\d{1,12}) tokens\. However, you requested (\d{1,12}) output tokens and your prompt contains (at least )?(\d{1,12}) input tokens/;
const VLLM_TOO_LARGE =
  /is too large: (\d{1,12})\. This model's maximum context length is (\d{1,12}) tokens and your request has (\d{1,12}) input tokens/;
const VLLM_PASSED =
  /You passed \d{1,12} input (?:tokens|characters) and requested (\d{1,12}) output tokens\. However, the model's context length is only (\d{1,12}) tokens/;
const VLLM_OVER_TOTAL = /=(\d{1,12}) ?cannot be greater than (?:\w{1,40}=){1,3}(\d{1,12})/;
const SGLANG_REQUESTED =
  /Requested token count exceeds the model's maximum context length of (\d{1,12}) tokens\.(?: You requested a total of \d{1,12} tokens: (\d{1,12}) tokens from the input messages and (\d{1,12}) tokens for the completion)?/;

/** The numbers of a request over the context for its completion budget (the phrases above), or undefined: the prompt's own, or unsaid. */
function budgetOver(said: string): BudgetOverContext | undefined {
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const over = (context: number, prompt: number | undefined, budget: number | undefined) => ({
    context,
    ...(prompt !== undefined && { prompt }),
    ...(budget !== undefined && { budget }),
  });
  let m = VLLM_IN_MESSAGES.exec(said);
  if (m) {
    const [context, prompt, budget] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return prompt < context ? over(context, prompt, budget) : undefined;
  }
  if ((m = VLLM_OUTPUT_TOKENS.exec(said))) {
    const [context, budget, atLeast, prompt] = [Number(m[1]), Number(m[2]), m[3] !== undefined, Number(m[4])];
    if (budget >= context) return over(context, atLeast ? undefined : prompt, budget);
    return !atLeast && prompt < context ? over(context, prompt, budget) : undefined;
  }
  if ((m = VLLM_TOO_LARGE.exec(said))) {
    const [budget, context, prompt] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return prompt < context || budget >= context ? over(context, prompt < context ? prompt : undefined, budget) : undefined;
  }
  if ((m = VLLM_PASSED.exec(said))) {
    const [budget, context] = [Number(m[1]), Number(m[2])];
    return budget >= context ? over(context, undefined, budget) : undefined;
  }
  if ((m = VLLM_OVER_TOTAL.exec(said))) {
    const [budget, context] = [Number(m[1]), Number(m[2])];
    return budget > context ? over(context, undefined, budget) : undefined;
  }
  if ((m = SGLANG_REQUESTED.exec(said))) {
    const [context, prompt, budget] = [Number(m[1]), num(m[2]), num(m[3])];
    return prompt === undefined || prompt < context ? over(context, prompt, budget) : undefined;
  }
  return undefined;
}

/**
 * What a server's words say of its refusal: a prompt over the context, or one the budget pushes over it, the model
 * asked for, a setting it does not take.
 */
interface ServerWording {
  context: boolean;
  budget?: BudgetOverContext;
  model: boolean;
  setting?: RefusedSetting;
}

/**
 * The one place awb reads a server's words (`said`: serverSaid, never awb's own text), for what the body's status,
 * code, type and param leave unsaid: the context phrases above, and the numbers of a request the budget pushes over
 * (budgetOver); the requested `model` named, quoted or beside the word "model" (`transformers serve` pinned to
 * another: "Server is pinned to 'a'; requested 'b'."), and no setting; a setting refused, by the phrases above.
 */
function serverWording(said: string, model: string | undefined): ServerWording {
  const only = ONLY_DEFAULT_TEMPERATURE.exec(said)?.[1];
  const setting: RefusedSetting | undefined =
    only !== undefined
      ? { name: 'temperature', only: Number(only) }
      : BUDGET_NAMES_BOTH.test(said)
        ? { name: 'max_tokens' }
        : COMPLETION_BUDGET_UNSUPPORTED.test(said)
          ? { name: 'max_completion_tokens' }
          : undefined;
  let named = false;
  if (model) {
    const rest = said.replaceAll(model, '');
    const quoted = ["'", '"', '`'].some((q) => said.includes(`${q}${model}${q}`));
    named = (quoted || (said.includes(model) && /model/i.test(rest))) && !SETTING_WORDING.test(rest);
  }
  const budget = budgetOver(said);
  return { context: CONTEXT_WORDING.test(said), ...(budget && { budget }), model: named, ...(setting && { setting }) };
}

/**
 * A setting the refusal names as one the server or model does not take. The body's code and `param` first
 * (OpenAI's `unsupported_parameter` on `max_tokens`, `unsupported_value` on `temperature`; pydantic's
 * `extra_forbidden` on a field); the server's words (`worded`, serverWording) for bodies without them.
 */
function refusedSetting(f: Omit<Refusal, 'about'>, worded: RefusedSetting | undefined): RefusedSetting | undefined {
  const unsupported = [f.code, f.type].some((c) => c !== undefined && UNSUPPORTED_CODES.has(c));
  const by = (name: RefusedSetting['name']) => (unsupported && f.param === name) || worded?.name === name;
  if (by('temperature')) return worded?.name === 'temperature' ? worded : { name: 'temperature' };
  if (by('max_tokens')) return { name: 'max_tokens' };
  if (by('max_completion_tokens')) return { name: 'max_completion_tokens' };
  return undefined;
}

function refusalAbout(status: number, f: Omit<Refusal, 'about'>, words: ServerWording): Refusal['about'] {
  if (f.code === 'model_not_found' || f.param === 'model') return 'model';
  // Before the context's codes and vLLM's `input_tokens`, which it gives both: only its numbers tell the budget's from the prompt's.
  if (words.budget && (status === 400 || status === 422 || status === 413)) return 'budget';
  if ((f.code && CONTEXT_CODES.has(f.code)) || (f.type && CONTEXT_CODES.has(f.type)) || f.param === CONTEXT_PARAM) return 'context';
  if (status === 404) return 'model';
  if (status !== 400 && status !== 422) return 'other';
  if (words.context) return 'context';
  return words.model ? 'model' : 'other';
}

/** Whether the error came from a reply that is no chat completion, or that the client could not read (bad JSON and the like). */
export function isMalformedReply(err: unknown): boolean {
  return err instanceof MalformedReplyError || err instanceof SyntaxError;
}

/** The system error code (ECONNREFUSED, ...) somewhere down an error's causes: a fetch may wrap it in a TypeError. */
export function causeCode(err: unknown): NetworkCause | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && !(e instanceof APIError)) return code;
  }
  return undefined;
}

/** A reply that tells against the endpoint's health. */
export function isFailureStatus(status: number): boolean {
  return status >= 500 || status === 429;
}

/**
 * A refusal that would repeat for every request, as its fault, for online and batch
 * requests alike: `said` gives the server's reason as one line (asked for only when kept).
 */
export function accessFault(
  err: APIError,
  at: { role: EndpointRole; endpoint: string },
  said: () => string,
  key?: KeySource,
): EndpointFault | undefined {
  if (err.status === 401) return { kind: 'key-rejected', ...at, ...(key && { key }) };
  if (err.status === 403) return { kind: 'access-refused', ...at, said: said() };
  // OpenAI's 429 for an account out of credit: no wait ends it, and every row would spend its retries on it.
  if (err.status === 429 && err.code === 'insufficient_quota') return { kind: 'no-quota', ...at, said: said() };
  return undefined;
}

/**
 * An error as one line for a row's record and the terminal, secrets removed before it is cut (some servers echo
 * the key back); `timeoutMs` is the --timeout the client's bare "Request timed out." is named with.
 */
export function describeError(err: unknown, timeoutMs: number, secrets: readonly string[]): string {
  let text: string;
  // A limit of awb's or a damaged body: not the "Connection error" the client wraps it in.
  const fault = replyFault(err) ?? replyFault(err instanceof Error ? err.cause : undefined);
  // The client says only "Request timed out.": the limit, and the option that sets it, say whether a longer one would help.
  if (err instanceof APIConnectionTimeoutError) text = `request timed out after ${timeoutMs / 1000} s (--timeout)`;
  else if (fault !== undefined) text = fault;
  else if (err instanceof APIConnectionError && err.cause instanceof Error) {
    text = `${err.message.replace(/\.$/, '')}: ${err.cause.message}`;
  } else if (err instanceof APIError) text = err.message;
  // awb's own words for a reply it could not use: the class name would only be noise in a row's error.
  else if (err instanceof MalformedReplyError || err instanceof StreamFailure || err instanceof RequestFailed) text = err.message;
  else if (err instanceof Error) text = `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`;
  else text = String(err);
  return brief(text, secrets);
}

/**
 * A chat request refused as about the model (404, or a 400 or 422 naming it: refusalOf), as its fault.
 * `served`: the endpoint's models list, asked for once the refusal came; shown when it leaves the model out.
 */
export function unknownModel(
  at: { role: EndpointRole; endpoint: string },
  model: string,
  status: number,
  said: string,
  served?: readonly string[],
): EndpointFault {
  const listed = served?.length && !served.includes(model) ? { served } : {};
  return { kind: 'unknown-model', ...at, model, status, said, ...listed };
}
