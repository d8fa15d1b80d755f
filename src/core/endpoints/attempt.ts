import { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Client } from './http/client.js';
import { MalformedReplyError, StreamFailure, attemptFailure, causeCode, describeError, jsonOfText, replyProblem } from './classify.js';
import { collectStream, type StreamedReply } from './http/stream.js';
import { jsonBytes } from './http/json-bytes.js';
import type { ChatBody, ChatRequest } from './types.js';
import { withOwnSignal } from '../signals.js';

const CHAT_ROUTE = '/chat/completions';

/** Idle limit on a reply once it has started: a working server sends a finished completion in one go. */
export const DEFAULT_IDLE_MS = 120_000;

/** How long a stream that sent its finish reason is waited for (its usage chunk, `[DONE]`): servers send them at once. */
const USAGE_GRACE_MS = 5_000;

/** How each attempt is made: streamed or whole, its limits, and the secrets no error may show. */
export interface AttemptSettings {
  stream?: boolean;
  timeoutMs: number;
  idleMs?: number;
  secrets: readonly string[];
}

/** One attempt's answer: a chat completion (checked), the reply's headers, and with --stream its timings. */
export type Answer = StreamedReply & { headers: Headers };

/**
 * The client's options for a body already encoded: the client sends a byte body as it is, and
 * reads the reply as `chat.completions.create` (a `post` to the same route) does. A row's request
 * stays these bytes for all its attempts, rather than the texts they were built from.
 */
function requestOptions(body: ChatBody) {
  return { body: body.json, headers: { 'content-type': 'application/json' } };
}

/**
 * One attempt at a chat completion on one endpoint (`shown` names it), streamed or not; a reply
 * that is no chat completion awb can record is a MalformedReplyError, asked again by the pool.
 */
export async function attempt(client: Client, shown: string, body: ChatBody, s: AttemptSettings, signal?: AbortSignal): Promise<Answer> {
  const started = performance.now();
  const reply = s.stream
    ? await streamed(client, body, s, started, signal)
    : // The row's signal serves all its attempts (repeats, panel members, retries): each gets its own, as the client never unhooks its listener.
      await withOwnSignal(signal, (own) =>
        client.post<unknown>(CHAT_ROUTE, { ...requestOptions(body), ...(own && { signal: own }) }).withResponse(),
      )
        .then(({ data, response }) => ({ completion: jsonOfText(data) as ChatCompletion, headers: response.headers }))
        .catch((err: unknown) => {
          // The client parses a body declared JSON itself: one that is not is named as a reply, not as a SyntaxError.
          throw err instanceof SyntaxError ? new MalformedReplyError(`${shown} returned a reply that is not JSON (${err.message})`) : err;
        });
  const problem = replyProblem(reply.completion, s.secrets);
  if (problem)
    throw new MalformedReplyError(
      // A stream put together without a choice is most often a body that was no event stream; any other fault is named as it is.
      s.stream && reply.completion.choices.length === 0
        ? `${shown} sent no choice in its stream (a server or proxy that does not stream may answer plain JSON: try without --stream)`
        : `${shown} returned ${problem}`,
    );
  return reply;
}

/**
 * One streamed attempt. The client's timeout ends when the headers come, so
 * the whole stream gets its own; a stream that stalls, breaks or runs out
 * of time is a failed attempt (StreamFailure), retried like a timeout,
 * unless its finish reason came: then the answer is kept (collectStream),
 * marked `usageLost` when its usage never came.
 */
async function streamed(client: Client, body: ChatBody, s: AttemptSettings, started: number, signal?: AbortSignal): Promise<Answer> {
  const deadline = AbortSignal.timeout(s.timeoutMs);
  const cut = new AbortController();
  const all = AbortSignal.any([deadline, cut.signal, ...(signal ? [signal] : [])]);
  try {
    const { data: stream, response } = await client
      .post<AsyncIterable<ChatCompletionChunk>>(CHAT_ROUTE, { ...requestOptions(body), stream: true, signal: all })
      .withResponse();
    const graceMs = Math.min(USAGE_GRACE_MS, s.idleMs ?? DEFAULT_IDLE_MS);
    const reply = await collectStream(stream, started, { graceMs, cut: () => cut.abort() });
    return { ...reply, headers: response.headers };
  } catch (err) {
    // Refusals before the stream starts keep their status (a 401 is still fatal, a 429 still waits).
    if (signal?.aborted || (err instanceof APIError && err.status !== undefined)) throw err;
    if (deadline.aborted)
      throw new StreamFailure(
        { kind: 'timeout', timeout: 'request' },
        `stream broke off: timed out after ${s.timeoutMs / 1000} s (--timeout)`,
      );
    // A stream that ended without its finish reason, or with an error event, broke off: no code says more.
    const failure = attemptFailure(err) ?? { kind: 'connection', cause: causeCode(err) ?? 'stream-broke' };
    throw new StreamFailure(failure, `stream broke off: ${describeError(err, s.timeoutMs, s.secrets)}`);
  }
}

/**
 * A request's body as sent: JSON with the model and, streamed, the stream fields. `stream_options: null`
 * (from --extra-body) leaves stream_options out, for servers that refuse it: usage then comes only from a
 * server that sends it unasked.
 */
export function chatBody(request: ChatRequest, model: string, stream: boolean): ChatBody {
  const { stream_options: options, ...fields } = request;
  const usage = options === null ? {} : { stream_options: { include_usage: true } };
  return { json: jsonBytes({ ...fields, model, ...(stream ? { stream: true, ...usage } : {}) }) };
}
