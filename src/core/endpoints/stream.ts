import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';

/** A streamed reply put back together, with its timings. */
export interface StreamedReply {
  completion: ChatCompletion;
  /** From the request to the first content or reasoning token. */
  ttftMs?: number;
  /** Completion tokens per second after the first token. */
  decodeTokensPerS?: number;
}

/** What servers send in a delta besides the typed fields: vLLM and SGLang `reasoning_content`, others `reasoning`. */
type Delta = { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; role?: string };
const TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning'] as const;

/**
 * Reads a chat completion stream (with `include_usage`) into the completion
 * the same request unstreamed returns: content and each reasoning field
 * concatenated, the last finish reason, the usage chunk. A field no delta
 * carried is left out, as an unstreamed message leaves it out; a stream
 * without a choice gives no choice; one whose choice never finished throws.
 */
export async function collectStream(chunks: AsyncIterable<ChatCompletionChunk>, started: number): Promise<StreamedReply> {
  let id = '';
  let model = '';
  let created = 0;
  let content: string | undefined;
  let reasoningContent: string | undefined;
  let reasoning: string | undefined;
  let finish: string | null = null;
  let usage: ChatCompletion['usage'];
  let first: number | undefined;
  let answered = false;
  const notText: Record<string, unknown> = {};
  for await (const chunk of chunks) {
    id ||= chunk.id;
    model ||= chunk.model;
    created ||= chunk.created;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    answered = true;
    const d = (choice.delta ?? {}) as Delta;
    if (typeof d.content === 'string') content = (content ?? '') + d.content;
    if (typeof d.reasoning_content === 'string') reasoningContent = (reasoningContent ?? '') + d.reasoning_content;
    if (typeof d.reasoning === 'string') reasoning = (reasoning ?? '') + d.reasoning;
    // A field that is not text is kept as it came, so the reply is refused as its unstreamed twin is (replyProblem).
    for (const name of TEXT_FIELDS) if (d[name] != null && typeof d[name] !== 'string') notText[name] ??= d[name];
    if (first === undefined && (d.content || d.reasoning_content || d.reasoning)) first = performance.now();
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const ended = performance.now();
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
  const tokens = usage?.completion_tokens;
  const decodeS = first === undefined ? 0 : (ended - first) / 1000;
  return {
    completion,
    ...(first !== undefined ? { ttftMs: Math.round(first - started) } : {}),
    ...(typeof tokens === 'number' && tokens > 0 && decodeS > 0 ? { decodeTokensPerS: Math.round((tokens / decodeS) * 10) / 10 } : {}),
  };
}

/** Median and 90th percentile (nearest rank) of the values, or undefined when there are none. */
export function medianP90(values: readonly number[]): { median: number; p90: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
  return { median: rank(0.5), p90: rank(0.9) };
}
