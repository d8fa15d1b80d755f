/*
 * Finds values in a JSON object's bytes without decoding or parsing the rest.
 * A judged row carries its whole history (megabytes), yet score needs a few
 * small fields and three strings: reading just those keeps memory near the
 * size of one line and time below a full JSON.parse. Anything unexpected
 * returns undefined, and the caller falls back to JSON.parse, so odd input
 * gets the same treatment (and error messages) as before.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export function skipWs(b: Buffer, i: number): number {
  while (i < b.length) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Whether the byte at `at` is escaped: preceded by an odd run of backslashes, counted back no further than `from`. */
export function isEscaped(b: Buffer, at: number, from: number): boolean {
  let slashes = 0;
  for (let k = at - 1; k >= from && b[k] === BACKSLASH; k--) slashes++;
  return slashes % 2 === 1;
}

/** End (exclusive) of the string starting at `i` (a quote), or -1. */
function skipString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q === -1) return -1;
    if (!isEscaped(b, q, i + 1)) return q + 1;
    from = q + 1;
  }
}

/** End (exclusive) of the value starting at `i`, or -1: found by brackets and quotes, not checked. */
export function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j]!;
      if (d === QUOTE) {
        j = skipString(b, j) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < b.length) {
    const d = b[j]!;
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
    j++;
  }
  return j > i ? j : -1;
}

export type Slice = [start: number, end: number];

/**
 * Walks the top-level members of an object line in order, calling `visit`
 * with each key and the byte range of its value until `visit` returns true.
 * Returns 'stopped', 'end' (the whole line is the object), or undefined when
 * the line is not an object this walk can read.
 */
function walkMembers(b: Buffer, visit: (key: string, value: Slice) => boolean): 'stopped' | 'end' | undefined {
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) return undefined;
  i = skipWs(b, i + 1);
  if (b[i] === 0x7d) return skipWs(b, i + 1) === b.length ? 'end' : undefined;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return undefined;
    const key = b.toString('utf8', i + 1, keyEnd - 1);
    if (key.includes('\\')) return undefined;
    i = skipWs(b, keyEnd);
    if (b[i] !== 0x3a) return undefined;
    i = skipWs(b, i + 1);
    const end = skipValue(b, i);
    if (end < 0) return undefined;
    if (visit(key, [i, end])) return 'stopped';
    i = skipWs(b, end);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    if (b[i] === 0x7d) return skipWs(b, i + 1) === b.length ? 'end' : undefined;
    return undefined;
  }
}

/** The byte ranges of the wanted top-level keys' values (the last one of a repeated key, as JSON.parse keeps). */
export function topLevelValues(b: Buffer, wanted: ReadonlySet<string>): Map<string, Slice> | undefined {
  const found = new Map<string, Slice>();
  const walked = walkMembers(b, (key, value) => {
    if (wanted.has(key)) found.set(key, value);
    return false;
  });
  return walked ? found : undefined;
}

/**
 * The byte range of the first top-level `key`'s value, reading only as far as
 * that key (rows put `task` first, before megabytes of history).
 */
export function firstTopLevelValue(b: Buffer, key: string): Slice | undefined {
  let found: Slice | undefined;
  walkMembers(b, (k, value) => {
    if (k === key) found = value;
    return found !== undefined;
  });
  return found;
}

/** The byte range of element `index` of the array at `slice`, or undefined when it is not an array or too short. */
export function arrayElement(b: Buffer, slice: Slice, index: number): Slice | undefined {
  let i = slice[0];
  if (b[i] !== 0x5b) return undefined;
  i = skipWs(b, i + 1);
  if (b[i] === 0x5d) return undefined;
  for (let n = 0; ; n++) {
    const end = skipValue(b, i);
    if (end < 0 || end > slice[1]) return undefined;
    if (n === index) return [i, end];
    i = skipWs(b, end);
    if (b[i] !== 0x2c) return undefined;
    i = skipWs(b, i + 1);
  }
}

/** The value at a slice, parsed on its own (small values only). */
export function parseSlice(b: Buffer, slice: Slice | undefined): unknown {
  return slice === undefined ? undefined : JSON.parse(b.toString('utf8', slice[0], slice[1]));
}
