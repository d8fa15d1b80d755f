import { createHash } from 'node:crypto';
import { domainOfTask } from '../domains.js';
import { updateText } from '../text-parts.js';
import { lastValueText } from './members.js';

export interface KeyedFields {
  task: string;
  id: unknown;
  turn_idx: number;
  prompt?: string[];
  response?: string[];
  current_prompt?: string;
  system_str?: string;
}

/**
 * Identifies one evaluated turn across infer, judge, score, compare and merge.
 * `(domain, id, turn_idx)` is not unique in the real data (android has one
 * pair twice, as two distinct rows), so the key also carries a short
 * fingerprint of what the turn asks and expects. It is computed from the
 * row's content, never from file order, so the same row gets the same key in
 * the dataset, in predictions and in judged files written in any order.
 */
export function rowKey(raw: string, row: KeyedFields): string {
  const t = row.turn_idx - 1;
  return turnKey(
    row.task,
    idText(row.id, () => lastValueText(Buffer.from(raw), 'id')),
    row.turn_idx,
    row.system_str ?? '',
    row.current_prompt || (row.prompt?.[t] ?? ''),
    row.response?.[t] ?? '',
  );
}

/**
 * The id as row keys spell it: as `written` in the line when JSON.parse could not keep it exactly (a number
 * that is not a safe integer, such as one beyond 2^53), else as a string. `written` is asked only then.
 */
export function idText(id: unknown, written: () => string | undefined): string {
  if (typeof id === 'number' && !Number.isSafeInteger(id)) return written() ?? String(id);
  return String(id);
}

/** The key of a turn from what it is made of: the id as idText spells it, the texts as JSON.parse reads them. */
export function turnKey(task: string, id: string, turn: number, system: string, action: string, truth: string): string {
  const h = createHash('sha1');
  updateText(h, system);
  h.update('\0');
  updateText(h, action);
  h.update('\0');
  updateText(h, truth);
  return `${domainOfTask(task)}:${id}:${turn}:${h.digest('hex').slice(0, 10)}`;
}

/** What two rows with the same key share, for messages: the history is not part of a key, so rows differing only there are one row. */
export const SAME_ROW = 'same task, id, turn_idx, system_str, action and ground truth';

/** Splits a key; ids may themselves hold colons, so the fixed parts are taken from both ends. */
export function splitKey(key: string): { domain: string; id: string; turn: number; fingerprint: string } {
  const first = key.indexOf(':');
  const last = key.lastIndexOf(':');
  const turnStart = key.lastIndexOf(':', last - 1);
  return {
    domain: key.slice(0, first),
    id: key.slice(first + 1, turnStart),
    turn: Number(key.slice(turnStart + 1, last)),
    fingerprint: key.slice(last + 1),
  };
}

/** The trajectory a row belongs to: turns of one trajectory share a prefix and are resampled together. */
export function clusterOfKey(key: string): string {
  const k = splitKey(key);
  return `${k.domain}:${k.id}`;
}

/** The key without its fingerprint, for messages meant for people. */
export function displayKey(key: string): string {
  const k = splitKey(key);
  return `${k.domain} id ${k.id} turn ${k.turn}`;
}
