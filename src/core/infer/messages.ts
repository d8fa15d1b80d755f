import type { DatasetRow } from '../schemas/index.js';
import { currentAction, isEmptyToken, type RowText } from '../rows/index.js';

/**
 * Message text as pieces: strings of our own, or text taken from the row as
 * it is spelled in JSON (escaped, without quotes), copied into the request
 * byte for byte and never decoded.
 */
export type Piece = string | Buffer;

/** An observation shown to the judge: a string, or escaped text from the row with its longest run of backticks. */
export type Observation = string | { escaped: Buffer; longestBackticks: number };

/** A JSON string token's text as a piece. */
function inner(token: Buffer): Buffer {
  return token.subarray(1, token.length - 1);
}

export type HistoryMode = 'full' | 'none';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: Piece[];
}

/** Number of earlier turns that have both an action and an observation. */
function earlierTurns(row: DatasetRow): number {
  return Math.min(row.turn_idx - 1, row.prompt.length, row.response.length);
}

/**
 * What the world model is asked. With full history (the official protocol
 * since its history fix) every earlier turn is replayed as a user action and
 * the assistant's observation, so the model predicts turn t from the same
 * state the judge scores against; `none` sends only the current action, as
 * the official script did before that fix.
 */
export function worldModelMessages(row: DatasetRow, text: RowText, history: HistoryMode): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = text.field('system_str');
  if (!isEmptyToken(system)) messages.push({ role: 'system', content: [inner(system!)] });
  if (history === 'full') {
    for (let i = 0; i < earlierTurns(row); i++) {
      messages.push({ role: 'user', content: [inner(text.item('prompt', i)!)] });
      messages.push({ role: 'assistant', content: [inner(text.item('response', i)!)] });
    }
  }
  messages.push({ role: 'user', content: [inner(currentAction(row, text))] });
  return messages;
}

/**
 * What the judge is asked: the domain rubric as system prompt; the earlier
 * turns as context, then the current action, the simulated observation and
 * the real one. Observations are fenced so that markup inside them cannot be
 * mistaken for the judge's own instructions.
 */
export function judgeMessages(row: DatasetRow, text: RowText, prediction: Observation, truth: Observation, rubric: string): ChatMessage[] {
  const pieces: Piece[] = [];
  const n = earlierTurns(row);
  if (n > 0) {
    pieces.push('# Earlier turns\n\n');
    for (let i = 0; i < n; i++) pieces.push(inner(text.item('prompt', i)!), '\n', inner(text.item('response', i)!), '\n\n');
  }
  pieces.push(`# Action to evaluate (turn ${row.turn_idx})\n\n`, inner(currentAction(row, text)), '\n\n');
  pieces.push('# Simulated observation\n\n', ...fenced(prediction), '\n\n');
  pieces.push('# Real observation\n\n', ...fenced(truth));
  return [
    { role: 'system', content: [rubric] },
    { role: 'user', content: pieces },
  ];
}

/** A code fence longer than any backtick run inside the text, so the text cannot close it early. */
function fenced(text: Observation): Piece[] {
  let longest = 2;
  if (typeof text === 'string') for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  else longest = Math.max(longest, text.longestBackticks);
  const bar = '`'.repeat(longest + 1);
  return [bar, '\n', typeof text === 'string' ? text : text.escaped, '\n', bar];
}
