import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { brief } from '../shown.js';
import type { EndpointFault, EndpointRole, KeySource } from './faults.js';
import { isDeadConnectionCode } from './health.js';
import { replyFault } from './http/http-fetch.js';
import type { AttemptFailure } from './retry.js';

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

/** A streamed reply that stalled, broke or outlasted the timeout after it began: a failed attempt. */
export class StreamFailure extends Error {
  override name = 'StreamFailure';
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

/** A failed request as the retry policy sees it: a connection that failed (or a stream that broke), or a status; undefined for any other error. */
export function attemptFailure(err: unknown): AttemptFailure | undefined {
  if (err instanceof APIConnectionError || err instanceof StreamFailure) return { kind: 'connection' };
  if (err instanceof APIError && err.status !== undefined)
    return { kind: 'status', status: err.status, headers: err.headers ?? new Headers() };
  return undefined;
}

/** Whether the error came from a reply that is no chat completion, or that the client could not read (bad JSON and the like). */
export function isMalformedReply(err: unknown): boolean {
  return err instanceof MalformedReplyError || err instanceof SyntaxError;
}

/** The system error code under a connection error (ECONNREFUSED, ...), if any. */
export function causeCode(err: APIConnectionError): string | undefined {
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A connection cut under a request: not refused or unreachable, not timed out, not one of awb's own limits on a reply. */
export function isCutUnder(err: unknown): boolean {
  if (err instanceof StreamFailure) return !/\(--timeout\)$/.test(err.message);
  return (
    err instanceof APIConnectionError &&
    !(err instanceof APIConnectionTimeoutError) &&
    !isDeadConnectionCode(causeCode(err)) &&
    replyFault(err) === undefined &&
    replyFault(err.cause) === undefined
  );
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
  else if (err instanceof MalformedReplyError || err instanceof StreamFailure) text = err.message;
  else if (err instanceof Error) text = `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}`;
  else text = String(err);
  return brief(text, secrets);
}

/**
 * A chat or models-check refusal that would repeat for every row, as its fault: a key, access or
 * quota refusal, or a 404 (no such model, or no chat route). `served`: the endpoint's models list,
 * when a 404 made the pool ask for it.
 */
export function refusalFault(
  err: unknown,
  at: { role: EndpointRole; endpoint: string; model: string; key?: KeySource },
  said: () => string,
  served?: readonly string[],
): EndpointFault | undefined {
  if (!(err instanceof APIError) || err instanceof APIConnectionError) return undefined;
  const { model, key, ...where } = at;
  const refused = accessFault(err, where, said, key);
  if (refused) return refused;
  if (err.status !== 404) return undefined;
  const listed = served?.length && !served.includes(model) ? { served } : {};
  return { kind: 'unknown-model', ...where, model, status: 404, said: said(), ...listed };
}

/**
 * A 400 that is about the model name, as its fault: a server pinned to one model (`transformers
 * serve`, llama.cpp) answers another name so, where vLLM answers 404. Told by the reason naming the
 * model and saying it is unknown, not by a setting (a limit on tokens or temperature for that model).
 */
export function modelFault(
  err: APIError,
  at: { role: EndpointRole; endpoint: string; model: string },
  said: () => string,
  served?: readonly string[],
): EndpointFault | undefined {
  if (err.status !== 400) return undefined;
  const reason = said();
  const unknown =
    /not (found|exist|served|available|loaded|supported)|does ?n[o']t (exist|match)|unknown|no such|invalid model|mismatch|only serves|is serving|pinned|requested, but/i;
  if (!reason.includes(at.model) || !/model/i.test(reason) || !unknown.test(reason)) return undefined;
  if (/token|temperature|top_p|context|length|parameter|argument/i.test(reason.replaceAll(at.model, ''))) return undefined;
  const listed = served?.length && !served.includes(at.model) ? { served } : {};
  return { kind: 'unknown-model', ...at, status: 400, said: reason, ...listed };
}
