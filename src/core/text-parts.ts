import type { Hash } from 'node:crypto';

/**
 * Long texts are handled in parts of this many UTF-16 units: at most 48 KB of
 * UTF-8, under the size from which glibc serves a block of its own (and, once
 * it is freed, raises that size for the rest of the run).
 */
export const PART = 16_384;

/** `text` in slices of at most PART units that never split a surrogate pair, so each encodes as its piece of the whole. */
export function* textParts(text: string): Generator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PART);
    const last = text.charCodeAt(end - 1);
    // A pair cut in two would encode as two lone halves, not as the character.
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    yield text.slice(start, end);
    start = end;
  }
}

/**
 * Hashes `text` as UTF-8, as `hash.update(text)` does, part by part: Node
 * copies a string it hashes into a buffer from malloc, and a ground truth of
 * several hundred KB would leave glibc's heap fragmented (bench/README.md).
 */
export function updateText(hash: Hash, text: string): Hash {
  for (const part of textParts(text)) hash.update(part);
  return hash;
}
