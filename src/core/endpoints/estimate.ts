import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/*
 * Prompt tokens of a request, estimated without sending it: OpenAI's o200k
 * tokenizer (what current OpenAI judges count with; the Qwen tokenizers of
 * world models come out within a few per cent of it on this data), on a
 * sample of each request's text when it is long, plus the chat template's
 * few tokens per message.
 */

/** Tokens the chat template adds per message (role and separators), and once for the reply's start. */
const PER_MESSAGE = 4;
const REPLY_PRIMING = 3;

/** Texts up to this many characters are counted whole; longer ones from evenly spaced windows. */
export const SAMPLE_CHARS = 32_768;
const WINDOWS = 16;

/** The tokens of a text: exact when short, else its characters times the token rate of evenly spaced windows. */
export function estimateTextTokens(text: string): number {
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
export function estimatePromptTokens(messages: readonly { content: string }[]): number {
  let total = REPLY_PRIMING;
  let text = '';
  for (const m of messages) {
    total += PER_MESSAGE;
    text += m.content;
    // Long texts are sampled as a whole, so many short messages are not each counted exactly at full cost.
    if (text.length > SAMPLE_CHARS) {
      total += estimateTextTokens(text);
      text = '';
    }
  }
  return total + (text ? estimateTextTokens(text) : 0);
}
