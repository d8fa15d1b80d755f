/*
 * Other byte forms of the same JSON object: what any JSON reader takes as
 * equal to the plain JSON.stringify form. Used to check that every stage
 * reads a row as JSON.parse does.
 */

export interface Spelling {
  /** Keys written with a \u escape for their first character. */
  escapedKeys?: boolean;
  /** Every non-ASCII character (and astral ones as surrogate pairs) written as \u escapes. */
  escapedText?: boolean;
  /** `/` written as `\/`. */
  slashes?: boolean;
  /** Keys in reverse order. */
  reordered?: boolean;
  /** Spaces, tabs and newlines-free whitespace around every token. */
  whitespace?: boolean;
  /** The top-level keys written twice, a decoy value first: the last one wins. */
  repeated?: boolean;
}

export const SPELLINGS: Spelling[] = [
  { escapedKeys: true },
  { escapedText: true },
  { slashes: true },
  { reordered: true },
  { whitespace: true },
  { repeated: true },
  { escapedKeys: true, escapedText: true, slashes: true, reordered: true, whitespace: true, repeated: true },
];

function str(s: string, sp: Spelling): string {
  let out = JSON.stringify(s);
  if (sp.escapedText) out = out.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (sp.slashes) out = out.replace(/\//g, '\\/');
  return out;
}

function key(k: string, sp: Spelling): string {
  if (!sp.escapedKeys || k.length === 0) return str(k, sp);
  return `"\\u${k.charCodeAt(0).toString(16).padStart(4, '0')}${str(k, sp).slice(2)}`;
}

function decoy(v: unknown): unknown {
  if (typeof v === 'number') return -v - 1;
  if (typeof v === 'string') return `decoy ${v}`;
  if (Array.isArray(v)) return ['decoy'];
  return { decoy: true };
}

/** The value spelled another way; nested objects are spelled the same way, but only the top level repeats keys. */
export function respell(value: unknown, sp: Spelling, top = true): string {
  const ws = sp.whitespace ? ' \t ' : '';
  if (typeof value === 'string') return str(value, sp);
  if (Array.isArray(value)) return `[${ws}${value.map((v) => respell(v, sp, false)).join(`${ws},${ws}`)}${ws}]`;
  if (value && typeof value === 'object') {
    let entries = Object.entries(value as Record<string, unknown>);
    if (sp.reordered) entries = entries.reverse();
    const members = entries.map(([k, v]) => `${key(k, sp)}${ws}:${ws}${respell(v, sp, false)}`);
    if (top && sp.repeated) members.unshift(...entries.map(([k, v]) => `${key(k, sp)}:${respell(decoy(v), sp, false)}`));
    return `{${ws}${members.join(`${ws},${ws}`)}${ws}}`;
  }
  return JSON.stringify(value);
}
