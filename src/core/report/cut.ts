/*
 * Long texts are cut so that a report of the full data stays a file a
 * browser opens quickly: the full text stays in the JSONL.
 */

/** No text is kept longer than this many characters (UTF-16 code units). */
export const MAX_TEXT = 6000;
/** The limit is never lowered below this, however many rows there are. */
export const MIN_TEXT = 500;
/** The characters all kept texts may take together; past it the limit is lowered for every text alike. */
export const TEXT_BUDGET = 12_000_000;

/** A kept text: whole, or its first characters and the length it had. */
export type Kept = string | { head: string; length: number };

/** The first `limit` characters of `text`, never splitting a surrogate pair. */
export function cut(text: string, limit: number): Kept {
  if (text.length <= limit) return text;
  const end = isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return { head: copied(text.slice(0, end)), length: text.length };
}

/** A kept text cut again at a lower limit. */
export function recut(kept: Kept, limit: number): Kept {
  if (typeof kept === 'string') return cut(kept, limit);
  if (kept.head.length <= limit) return kept;
  const again = cut(kept.head, limit) as { head: string };
  return { head: again.head, length: kept.length };
}

/**
 * A string of its own: V8 may keep a slice as a view of its parent, and the
 * parent of a kept head is a whole multi-MB observation.
 */
const copied = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/**
 * The largest limit (between MIN_TEXT and MAX_TEXT) at which the texts,
 * each cut at it, take at most `budget` characters together: long texts
 * give way first and short ones stay whole.
 */
export function fitLimit(lengths: readonly number[], budget = TEXT_BUDGET): number {
  const keptAt = (limit: number): number => lengths.reduce((n, l) => n + Math.min(l, limit), 0);
  if (keptAt(MAX_TEXT) <= budget) return MAX_TEXT;
  let lo = MIN_TEXT;
  let hi = MAX_TEXT;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (keptAt(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export const keptLength = (kept: Kept): number => (typeof kept === 'string' ? kept.length : kept.head.length);
