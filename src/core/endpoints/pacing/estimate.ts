/*
 * Prompt tokens of a request, estimated without sending it: OpenAI's o200k
 * tokenizer (what current OpenAI judges count with; the Qwen tokenizers of
 * world models come out within a few per cent of it on this data), on a
 * sample of each request's text when it is long, plus the chat template's
 * few tokens per message. The tokenizer's tables weigh tens of MB, so they
 * are loaded on the first estimate, never by a run that sends its requests.
 */

import type { ChatMessage } from '../types.js';

type CountTokens = (text: string) => number;
let loaded: Promise<CountTokens> | undefined;

function tokenizer(): Promise<CountTokens> {
  loaded ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => m.countTokens);
  return loaded;
}

/** Tokens the chat template adds per message (role and separators), and once for the reply's start. */
const PER_MESSAGE = 4;
const REPLY_PRIMING = 3;

/** Texts up to this many characters are counted whole; longer ones from evenly spaced windows. */
export const SAMPLE_CHARS = 32_768;
const WINDOWS = 16;

/** The tokens of a text: exact when short, else its characters times the token rate of evenly spaced windows. */
export async function estimateTextTokens(text: string): Promise<number> {
  const countTokens = await tokenizer();
  if (text.length <= SAMPLE_CHARS) return countTokens(text);
  const width = Math.floor(SAMPLE_CHARS / WINDOWS);
  const step = (text.length - width) / (WINDOWS - 1);
  let tokens = 0;
  let chars = 0;
  for (let w = 0; w < WINDOWS; w++) {
    const start = Math.round(w * step);
    const window = text.slice(start, start + width);
    tokens += countTokens(window);
    chars += window.length;
  }
  return Math.round((tokens / chars) * text.length);
}

/** The prompt tokens of a chat request's messages. */
export async function estimatePromptTokens(messages: readonly Pick<ChatMessage, 'content'>[]): Promise<number> {
  let total = REPLY_PRIMING;
  let text = '';
  for (const m of messages) {
    total += PER_MESSAGE;
    text += String(m.content);
    // Long texts are sampled as a whole, so many short messages are not each counted exactly at full cost.
    if (text.length > SAMPLE_CHARS) {
      total += await estimateTextTokens(text);
      text = '';
    }
  }
  return total + (text ? await estimateTextTokens(text) : 0);
}
