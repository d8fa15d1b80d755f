import type { DatasetRow } from './schemas/dataset-row.js';
import { EMPTY_TOKEN, isEmptyToken, type RowText } from './row-text.js';

/**
 * Message text as pieces: JSON string tokens taken from the row (copied into
 * the request byte for byte, never decoded) or strings of our own.
 */
export type Piece = Buffer | string;

export type HistoryMode = 'full' | 'none';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: Piece[];
}

/** The action being evaluated: `current_prompt`, or the prompt list's entry when a hand-made row leaves it empty. */
export function currentAction(row: DatasetRow, text: RowText): Buffer {
  const current = text.field('current_prompt');
  return isEmptyToken(current) ? (text.item('prompt', row.turn_idx - 1) ?? EMPTY_TOKEN) : current!;
}

export function groundTruth(row: DatasetRow, text: RowText): Buffer {
  return text.item('response', row.turn_idx - 1) ?? EMPTY_TOKEN;
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
  if (!isEmptyToken(system)) messages.push({ role: 'system', content: [system!] });
  if (history === 'full') {
    for (let i = 0; i < earlierTurns(row); i++) {
      messages.push({ role: 'user', content: [text.item('prompt', i)!] });
      messages.push({ role: 'assistant', content: [text.item('response', i)!] });
    }
  }
  messages.push({ role: 'user', content: [currentAction(row, text)] });
  return messages;
}

/**
 * What the judge is asked: the domain rubric as system prompt; the earlier
 * turns as context, then the current action, the simulated observation and
 * the real one. Observations are fenced so that markup inside them cannot be
 * mistaken for the judge's own instructions.
 */
export function judgeMessages(row: DatasetRow, text: RowText, prediction: string, truth: string, rubric: string): ChatMessage[] {
  const pieces: Piece[] = [];
  const n = earlierTurns(row);
  if (n > 0) {
    pieces.push('# Earlier turns\n\n');
    for (let i = 0; i < n; i++) pieces.push(text.item('prompt', i)!, '\n', text.item('response', i)!, '\n\n');
  }
  pieces.push(`# Action to evaluate (turn ${row.turn_idx})\n\n`, currentAction(row, text), '\n\n');
  pieces.push('# Simulated observation\n\n', ...fenced(prediction), '\n\n');
  pieces.push('# Real observation\n\n', ...fenced(truth));
  return [
    { role: 'system', content: [rubric] },
    { role: 'user', content: pieces },
  ];
}

/** A code fence longer than any backtick run inside the text, so the text cannot close it early. */
function fenced(text: string): string[] {
  let longest = 2;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  const bar = '`'.repeat(longest + 1);
  return [bar, '\n', text, '\n', bar];
}
