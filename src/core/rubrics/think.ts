/**
 * Tag handling for model and judge replies. Tags are matched
 * case-insensitively because models are inconsistent about case, and all
 * offsets come from regex matches on the original text (lower-casing first
 * can change the length of some strings and shift offsets).
 */

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
  const opens: number[] = [];
  /** Where each `</think>` ends. */
  const closes: number[] = [];
  const tags = /<(\/?)think>/gi;
  for (let m = tags.exec(text); m; m = tags.exec(text)) {
    if (m[1]) closes.push(m.index + m[0].length);
    else opens.push(m.index);
  }
  // The stop tags, found once: a reply of many unclosed opens must not search the rest of the text for each.
  const stops = stopTag === undefined ? [] : tagStarts(text, stopTag);
  // Everything before `prefix` goes (the orphan closes); the cuts start in reading order, as the opens do.
  let prefix = 0;
  const cuts: Cuts = { starts: [], ends: [] };
  // The closes taken by earlier opens are always the leading ones, so one pointer walks them; the opens come in
  // reading order, so another walks the stops.
  let next = 0;
  let stop = 0;
  for (const open of opens) {
    while (next < closes.length && closes[next]! <= open) prefix = Math.max(prefix, closes[next++]!);
    if (next < closes.length) {
      cuts.starts.push(open);
      cuts.ends.push(closes[next++]!);
      continue;
    }
    // An unclosed `<think>` ends at the next stop tag (kept), else at the end.
    while (stop < stops.length && stops[stop]! < open) stop++;
    cuts.starts.push(open);
    cuts.ends.push(stops[stop] ?? text.length);
  }
  for (; next < closes.length; next++) prefix = Math.max(prefix, closes[next]!);
  return removeSpans(text, prefix, cuts);
}

/**
 * The content of the last `<tag>` block: up to its closing tag, or to the end
 * when it is never closed (the model ran out of tokens or forgot the close).
 * Undefined when the tag never opens.
 */
export function lastBlock(text: string, tag: string): string | undefined {
  const last = tagStarts(text, tag).at(-1);
  if (last === undefined) return undefined;
  const rest = text.slice(last + tag.length + 2);
  const close = new RegExp(`</${escapeRegExp(tag)}>`, 'i').exec(rest);
  return close ? rest.slice(0, close.index) : rest;
}

/** Where each `<tag>` starts, case-insensitively, in reading order. */
function tagStarts(text: string, tag: string): number[] {
  const re = new RegExp(`<${escapeRegExp(tag)}>`, 'gi');
  const at: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) at.push(m.index);
  return at;
}

/** Spans to cut, as two lists (a reply may have hundreds of thousands): where each starts, where each ends. */
type Cuts = { starts: number[]; ends: number[] };

/** The text without its first `prefix` characters and without the cuts, which start in reading order (they may overlap). */
function removeSpans(text: string, prefix: number, cuts: Cuts): string {
  const kept: string[] = [];
  let pos = prefix;
  for (let i = 0; i < cuts.starts.length; i++) {
    if (cuts.starts[i]! > pos) kept.push(text.slice(pos, cuts.starts[i]));
    pos = Math.max(pos, cuts.ends[i]!);
  }
  kept.push(text.slice(pos));
  return kept.join('');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
