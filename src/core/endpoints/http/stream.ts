import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';

/** A streamed reply put back together, with its timings. */
export interface StreamedReply {
  completion: ChatCompletion;
  /** From the request to the first content or reasoning token. */
  ttftMs?: number;
  /** Completion tokens per second from the first token to the last, when they came spread out (see decodeSpeed). */
  decodeTokensPerS?: number;
  /** The stream stalled or broke after its finish reason, before its usage chunk: the answer is whole, its usage unknown. */
  usageLost?: true;
}

/** What a stream may still owe once its finish reason came (the usage chunk, `[DONE]`), and how to stop waiting for it. */
export interface StreamTail {
  /** How long to wait for the next chunk once the finish reason came. */
  graceMs: number;
  /** Ends the request (its reading then ends as the stream's end). */
  cut: () => void;
}

/**
 * Content that came in this many chunks per network read on average came in bursts: a proxy that
 * buffers server-sent events hands on the whole reply (or large blocks of it) at once, and the
 * time between its first and last token is then parsing, not decoding.
 */
const MAX_CHUNKS_PER_READ = 8;

/**
 * Completion tokens per second between the first and last content chunk, or undefined when that
 * span measures no decoding: content from one network read (or bursts of many chunks each).
 */
function decodeSpeed(tokens: number | undefined, spanMs: number, chunks: number, reads: number): number | undefined {
  if (typeof tokens !== 'number' || tokens <= 0 || spanMs <= 0 || reads < 2 || chunks > reads * MAX_CHUNKS_PER_READ) return undefined;
  return Math.round((tokens / (spanMs / 1000)) * 10) / 10;
}

/**
 * Counts the network reads chunks come from: every chunk of one read is handled before the event
 * loop turns (the parsing runs in microtasks), so a chunk seen after a turn came from a later read.
 */
function readCounter(): () => number {
  let turn = 0;
  let ticking = false;
  let seen = -1;
  let reads = 0;
  return () => {
    if (seen !== turn) reads++;
    seen = turn;
    if (!ticking) {
      ticking = true;
      setImmediate(() => {
        ticking = false;
        turn++;
      });
    }
    return reads;
  };
}

/** What servers send in a delta besides the typed fields: vLLM and SGLang `reasoning_content`, others `reasoning`. */
type Delta = { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; role?: string };
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning'] as const;

/**
 * The message of an error sent as an event the openai client hands on as a chunk: SGLang's and older
 * vLLM's `{"object": "error", "message": …}`, or an `event: error` whose data has no `error` wrapper
 * (the client throws on those with one). Without this, the reason was lost: the stream read as cut short.
 */
function errorIn(chunk: unknown): string | undefined {
  const c = chunk as { object?: unknown; choices?: unknown; message?: unknown; detail?: unknown };
  if (c.object !== 'error' && c.choices !== undefined) return undefined;
  const said = c.message ?? c.detail;
  if (typeof said === 'string') return said;
  return c.object === 'error' ? JSON.stringify(chunk) : undefined;
}

/**
 * Reads a chat completion stream (with `include_usage`) into the completion
 * the same request unstreamed returns: content and each reasoning field
 * concatenated, the last finish reason, the usage chunk. A field no delta
 * carried is left out, as an unstreamed message leaves it out; a stream
 * without a choice gives no choice; one whose choice never finished throws.
 * Once the finish reason came, the answer is whole: a stream that then
 * breaks, or sends nothing for `tail.graceMs` (which cuts it), still gives it,
 * marked `usageLost` when its usage had not come.
 */
export async function collectStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  started: number,
  tail?: StreamTail,
): Promise<StreamedReply> {
  let id = '';
  let model = '';
  let created = 0;
  let content: string | undefined;
  let reasoningContent: string | undefined;
  let reasoning: string | undefined;
  let finish: string | null = null;
  let usage: ChatCompletion['usage'];
  let first: number | undefined;
  let last = 0;
  let textChunks = 0;
  let reads = 0;
  const countRead = readCounter();
  let answered = false;
  let cut = false;
  let grace: NodeJS.Timeout | undefined;
  const notText: Record<string, unknown> = {};
  try {
    for await (const chunk of chunks) {
      clearTimeout(grace);
      const said = errorIn(chunk);
      if (said !== undefined) throw new Error(`the server sent an error instead of the rest of the stream: ${said}`);
      id ||= chunk.id;
      model ||= chunk.model;
      created ||= chunk.created;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (choice) {
        answered = true;
        const d = (choice.delta ?? {}) as Delta;
        if (typeof d.content === 'string') content = (content ?? '') + d.content;
        if (typeof d.reasoning_content === 'string') reasoningContent = (reasoningContent ?? '') + d.reasoning_content;
        if (typeof d.reasoning === 'string') reasoning = (reasoning ?? '') + d.reasoning;
        // A field that is not text is kept as it came, so the reply is refused as its unstreamed twin is (replyProblem).
        for (const name of TEXT_FIELDS) if (d[name] != null && typeof d[name] !== 'string') notText[name] ??= d[name];
        if (d.content || d.reasoning_content || d.reasoning) {
          last = performance.now();
          first ??= last;
          textChunks++;
          reads = countRead();
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      if (finish !== null && tail) {
        grace = setTimeout(() => {
          cut = true;
          tail.cut();
        }, tail.graceMs);
      }
    }
  } catch (err) {
    // Broken off after the finish reason (stalled, reset, timed out): what it still owed was its usage, not its answer.
    if (finish === null) throw err;
    cut = true;
  } finally {
    clearTimeout(grace);
  }
  // Every generation ends with a finish reason (stop, length, ...): a stream that closes before it was cut
  // short (a proxy, a server restart), and what came is part of an answer, not an answer.
  if (answered && finish === null) throw new Error('the stream ended before the generation finished (no finish reason)');
  const message: Record<string, unknown> = { role: 'assistant', content: content ?? null };
  if (reasoningContent !== undefined) message.reasoning_content = reasoningContent;
  if (reasoning !== undefined) message.reasoning = reasoning;
  Object.assign(message, notText);
  const completion = {
    id,
    object: 'chat.completion',
    created,
    model,
    // No chunk with a choice (a body that was no event stream: a server or proxy answering plain JSON) is no answer, not an empty one.
    choices: answered ? [{ index: 0, message, logprobs: null, finish_reason: finish }] : [],
    ...(usage ? { usage } : {}),
  } as unknown as ChatCompletion;
  const decode = first === undefined ? undefined : decodeSpeed(usage?.completion_tokens, last - first, textChunks, reads);
  return {
    completion,
    ...(first !== undefined ? { ttftMs: Math.round(first - started) } : {}),
    ...(decode !== undefined ? { decodeTokensPerS: decode } : {}),
    ...(cut && !usage ? { usageLost: true as const } : {}),
  };
}

/** Median and 90th percentile (nearest rank) of the values, or undefined when there are none. */
export function medianP90(values: readonly number[]): { median: number; p90: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
  return { median: rank(0.5), p90: rank(0.9) };
}
