import type { Hash } from 'node:crypto';
import { isEscaped } from './json-scan.js';

/*
 * Operations on the text of a JSON string token done on its bytes, so that a
 * multi-MB observation never becomes a JavaScript string: large strings are
 * slow to create and are freed only by a full collection. Each one gives
 * exactly what the same operation on the decoded string would, or says it
 * cannot (undefined) and the caller decodes.
 */

const BACKSLASH = 0x5c;
const SIMPLE: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

function hex4(b: Buffer, i: number): number {
  return Number.parseInt(b.toString('latin1', i, i + 4), 16);
}

function putCodePoint(out: Buffer, o: number, cp: number): number {
  if (cp < 0x80) {
    out[o] = cp;
    return o + 1;
  }
  if (cp < 0x800) {
    out[o] = 0xc0 | (cp >> 6);
    out[o + 1] = 0x80 | (cp & 0x3f);
    return o + 2;
  }
  if (cp < 0x10000) {
    out[o] = 0xe0 | (cp >> 12);
    out[o + 1] = 0x80 | ((cp >> 6) & 0x3f);
    out[o + 2] = 0x80 | (cp & 0x3f);
    return o + 3;
  }
  out[o] = 0xf0 | (cp >> 18);
  out[o + 1] = 0x80 | ((cp >> 12) & 0x3f);
  out[o + 2] = 0x80 | ((cp >> 6) & 0x3f);
  out[o + 3] = 0x80 | (cp & 0x3f);
  return o + 4;
}

/**
 * Writes the UTF-8 of a valid token's string into `out` (at least as long
 * as the token: decoding never grows it) and returns the length. A lone
 * surrogate becomes U+FFFD, as Node encodes one in a string.
 */
export function unescapeToken(token: Buffer, out: Buffer): number {
  let o = 0;
  let i = 1;
  const end = token.length - 1;
  while (i < end) {
    const bs = token.indexOf(BACKSLASH, i);
    const stop = bs === -1 || bs >= end ? end : bs;
    o += token.copy(out, o, i, stop);
    if (stop === end) break;
    const e = token[stop + 1]!;
    i = stop + 2;
    if (e !== 0x75) {
      out[o++] = SIMPLE[e]!;
      continue;
    }
    let cu = hex4(token, i);
    i += 4;
    if (cu >= 0xd800 && cu <= 0xdbff && token[i] === BACKSLASH && token[i + 1] === 0x75) {
      const low = hex4(token, i + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cu = 0x10000 + ((cu - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
      }
    }
    o = putCodePoint(out, o, cu >= 0xd800 && cu <= 0xdfff ? 0xfffd : cu);
  }
  return o;
}

/** Feeds a token's string to a hash as `hash.update(string)` would, without making the string. */
export function hashToken(hash: Hash, token: Buffer | undefined, scratch: (size: number) => Buffer): void {
  if (!token) return;
  if (!token.includes(BACKSLASH)) {
    hash.update(token.subarray(1, token.length - 1));
    return;
  }
  const out = scratch(token.length);
  hash.update(out.subarray(0, unescapeToken(token, out)));
}

/** `\u00XX` for a printable ASCII character: text spelled in a way a byte search would miss. */
function hasAsciiEscape(token: Buffer): boolean {
  for (let at = token.indexOf('\\u00'); at !== -1; at = token.indexOf('\\u00', at + 1)) {
    // An escaped backslash followed by "u00" is text, not an escape.
    if (isEscaped(token, at, 0)) continue;
    const hi = token[at + 4]!;
    if (hi >= 0x32 && hi <= 0x37) return true;
  }
  return false;
}

/** What JavaScript's trim() removes: white space and line terminators. */
function isTrimmed(cp: number): boolean {
  return (
    (cp >= 0x09 && cp <= 0x0d) ||
    cp === 0x20 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

/** The UTF-16 unit or code point spelled at `i` of escaped text (astral ones need not be exact: none is white space). */
function charAt(t: Buffer, i: number): number {
  const c = t[i]!;
  if (c === BACKSLASH) return t[i + 1] === 0x75 ? hex4(t, i + 2) : SIMPLE[t[i + 1]!]!;
  if (c < 0x80) return c;
  if (c < 0xe0) return ((c & 0x1f) << 6) | (t[i + 1]! & 0x3f);
  if (c < 0xf0) return ((c & 0x0f) << 12) | ((t[i + 1]! & 0x3f) << 6) | (t[i + 2]! & 0x3f);
  return 0x10000;
}

/** How many bytes spell the character at `i` of escaped text. */
function charLength(t: Buffer, i: number): number {
  const c = t[i]!;
  if (c === BACKSLASH) return t[i + 1] === 0x75 ? 6 : 2;
  return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/** Where the character ending just before `z` starts, in escaped text that starts at `a`. */
function lastCharStart(t: Buffer, a: number, z: number): number {
  let i = z - 1;
  if (t[i]! >= 0x80) {
    while (i > a && (t[i]! & 0xc0) === 0x80) i--;
    return i;
  }
  if (i - 1 >= a && t[i - 1] === BACKSLASH && !isEscaped(t, i - 1, a)) return i - 1;
  if (i - 5 >= a && t[i - 5] === BACKSLASH && t[i - 4] === 0x75 && !isEscaped(t, i - 5, a)) return i - 5;
  return i;
}

/** The token's text without its quotes and with what trim() removes taken off both ends, still escaped. */
export function trimmedInner(token: Buffer): Buffer {
  let a = 1;
  let z = token.length - 1;
  while (a < z && isTrimmed(charAt(token, a))) a += charLength(token, a);
  while (z > a) {
    const start = lastCharStart(token, a, z);
    if (!isTrimmed(charAt(token, start))) break;
    z = start;
  }
  return token.subarray(a, z);
}

/** The longest run of backticks in escaped text, or undefined when one may be spelled as an escape. */
export function longestBacktickRun(inner: Buffer): number | undefined {
  if (hasAsciiEscape(inner)) return undefined;
  let longest = 0;
  for (let at = inner.indexOf(0x60); at !== -1;) {
    let end = at;
    while (inner[end] === 0x60) end++;
    longest = Math.max(longest, end - at);
    at = inner.indexOf(0x60, end);
  }
  return longest;
}

/**
 * Whether escaped text may hold the tag `<name>` or `</name>` (ASCII name,
 * matched without regard to case, like the tag handling in think.ts).
 */
export function mayHoldTag(escaped: Buffer, name: string): boolean {
  if (hasAsciiEscape(escaped)) return true;
  const want = Buffer.from(`${name.toLowerCase()}>`);
  for (let at = escaped.indexOf(0x3c); at !== -1; at = escaped.indexOf(0x3c, at + 1)) {
    let i = at + 1;
    if (escaped[i] === 0x2f) i++;
    else if (escaped[i] === BACKSLASH && escaped[i + 1] === 0x2f) i += 2;
    let k = 0;
    while (k < want.length && lower(escaped[i + k]) === want[k]) k++;
    if (k === want.length) return true;
  }
  return false;
}

function lower(c: number | undefined): number | undefined {
  return c !== undefined && c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}
