/**
 * Tag handling for model and judge replies. Tags are matched
 * case-insensitively because models are inconsistent about case, and all
 * offsets come from regex matches on the original text (lower-casing first
 * can change the length of some strings and shift offsets).
 */

type Span = [start: number, end: number];

/**
 * Removes reasoning from a reply, leaving surrounding whitespace alone, as
 * the official script pairs the tags (its numbers depend on it):
 * - each `<think>`, in reading order, is paired with the first `</think>`
 *   after it that no earlier one took, and the pair is removed (so nested
 *   blocks go as a whole);
 * - a `</think>` left over drops everything before it, because chat
 *   templates that open the think block themselves make the model emit only
 *   the close;
 * - a `<think>` left over drops text up to the next `<stopTag>` after it
 *   (kept), or to the end without a stop tag or when none follows, since a
 *   truncated or unterminated thought must not leak into the answer while
 *   the tagged answer after it is still wanted.
 */
export function stripThink(text: string, stopTag?: string): string {
  const cuts: Span[] = [];
  const opens: number[] = [];
  const closes: Span[] = [];
  for (const m of text.matchAll(/<(\/?)think>/gi)) {
    if (m[1]) closes.push([m.index, m.index + m[0].length]);
    else opens.push(m.index);
  }
  // The closes taken by earlier opens are always the leading ones, so one pointer walks them.
  let next = 0;
  for (const open of opens) {
    while (next < closes.length && closes[next]![0] < open) cuts.push([0, closes[next++]![1]]);
    const close = closes[next++];
    cuts.push([open, close ? close[1] : stopAfter(text, open, stopTag)]);
  }
  for (; next < closes.length; next++) cuts.push([0, closes[next]![1]]);
  return removeSpans(text, cuts);
}

/**
 * The content of the last `<tag>` block: up to its closing tag, or to the end
 * when it is never closed (the model ran out of tokens or forgot the close).
 * Undefined when the tag never opens.
 */
export function lastBlock(text: string, tag: string): string | undefined {
  const last = [...text.matchAll(new RegExp(`<${escapeRegExp(tag)}>`, 'gi'))].at(-1);
  if (!last) return undefined;
  const rest = text.slice(last.index + last[0].length);
  const close = new RegExp(`</${escapeRegExp(tag)}>`, 'i').exec(rest);
  return close ? rest.slice(0, close.index) : rest;
}

/** Where the text cut for an unclosed `<think>` at `from` ends: the next stop tag, else the end. */
function stopAfter(text: string, from: number, stopTag: string | undefined): number {
  const stop = stopTag === undefined ? null : new RegExp(`<${escapeRegExp(stopTag)}>`, 'i').exec(text.slice(from));
  return stop ? from + stop.index : text.length;
}

function removeSpans(text: string, spans: Span[]): string {
  let out = '';
  let pos = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start > pos) out += text.slice(pos, start);
    pos = Math.max(pos, end);
  }
  return out + text.slice(pos);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
