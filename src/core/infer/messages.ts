import { JoinedText, type ChatMessage } from '../endpoints/index.js';
import type { DatasetRow } from '../schemas/index.js';
import { currentAction } from '../rows/index.js';

export type HistoryMode = 'full' | 'none';

/** Number of earlier turns that have both an action and an observation. */
export function earlierTurns(row: DatasetRow): number {
  return Math.min(row.turn_idx - 1, row.prompt.length, row.response.length);
}

/**
 * The world model's conversation: the system prompt, the first `turns` turns
 * as a user action and an assistant observation (`observation(i)` for the
 * turn at index i), then `action`.
 */
export function conversation(row: DatasetRow, turns: number, observation: (i: number) => string, action: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (row.system_str) messages.push({ role: 'system', content: row.system_str });
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: row.prompt[i]! });
    messages.push({ role: 'assistant', content: observation(i) });
  }
  messages.push({ role: 'user', content: action });
  return messages;
}

/**
 * What the world model is asked. With full history (the official protocol
 * since its history fix) every earlier turn is replayed as a user action and
 * the assistant's observation, so the model predicts turn t from the same
 * state the judge scores against; `none` sends only the current action, as
 * the official script did before that fix.
 */
export function worldModelMessages(row: DatasetRow, history: HistoryMode): ChatMessage[] {
  return conversation(row, history === 'full' ? earlierTurns(row) : 0, (i) => row.response[i]!, currentAction(row));
}

/**
 * What the judge is asked: the domain rubric as system prompt; the earlier
 * turns as context, then the current action, the simulated observation and
 * the real one. Observations are fenced so that markup inside them cannot be
 * mistaken for the judge's own instructions.
 */
export function judgeMessages(row: DatasetRow, prediction: string, truth: string, rubric: string): ChatMessage[] {
  const pieces: string[] = [];
  const n = earlierTurns(row);
  if (n > 0) {
    pieces.push('# Earlier turns\n\n');
    for (let i = 0; i < n; i++) pieces.push(row.prompt[i]!, '\n', row.response[i]!, '\n\n');
  }
  pieces.push(`# Action to evaluate (turn ${row.turn_idx})\n\n`, currentAction(row), '\n\n');
  pieces.push('# Simulated observation\n\n', fenced(prediction), '\n\n');
  pieces.push('# Real observation\n\n', fenced(truth));
  return [
    { role: 'system', content: rubric },
    // Kept in pieces: the request is encoded from them without one joined copy of a multi-MB history.
    { role: 'user', content: new JoinedText(pieces) },
  ];
}

/** A code fence longer than any backtick run inside the text, so the text cannot close it early. */
export function fenced(text: string): string {
  let longest = 2;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  const bar = '`'.repeat(longest + 1);
  return `${bar}\n${text}\n${bar}`;
}
