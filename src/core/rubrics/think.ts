/**
 * Tag handling for model and judge replies. Tags are matched
 * case-insensitively because models are inconsistent about case, and all
 * offsets come from regex matches on the original text (lower-casing first
 * can change the length of some strings and shift offsets).
 */

type Span = [start: number, end: number];

/**
 * Removes reasoning from a reply, leaving surrounding whitespace alone:
 * - every paired `<think>…</think>`, nested pairs included;
 * - an orphan `</think>` drops everything before it, because chat templates
 *   that open the think block themselves make the model emit only the close;
 * - an unclosed `<think>` drops text up to the next `<stopTag>` (kept), or to
 *   the end, since a truncated or unterminated thought must not leak into
 *   the answer while the tagged answer after it is still wanted.
 */
export function stripThink(text: string, stopTag = 'final_evaluation'): string {
  const cuts: Span[] = [];
  const open: number[] = [];
  for (const m of text.matchAll(/<(\/?)think>/gi)) {
    if (!m[1]) {
      open.push(m.index);
      continue;
    }
    // With nothing open this close is an orphan, so its cut starts at 0.
    cuts.push([open.pop() ?? 0, m.index + m[0].length]);
  }
  const unclosed = open[0];
  if (unclosed !== undefined) cuts.push([unclosed, stopAfter(text, unclosed, stopTag, cuts)]);
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

/** Where the text cut for an unclosed `<think>` ends: a stop tag inside a removed pair does not count. */
function stopAfter(text: string, from: number, stopTag: string, cuts: Span[]): number {
  const tag = new RegExp(`<${escapeRegExp(stopTag)}>`, 'gi');
  for (const m of text.slice(from).matchAll(tag)) {
    const at = from + m.index;
    if (!cuts.some(([s, e]) => at >= s && at < e)) return at;
  }
  return text.length;
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
