/*
 * Finds values in a JSON object's bytes without decoding or parsing the rest.
 * A judged row carries its whole history (megabytes), yet score needs a few
 * small fields and three strings: reading just those keeps memory near the
 * size of one line and time below a full JSON.parse.
 *
 * On a valid JSON line every answer is the one JSON.parse gives: keys are
 * compared decoded (`"t\u0061sk"` is `task`), a repeated key's last value
 * wins, and values are decoded by JSON.parse itself. Anything unexpected
 * returns undefined, and the caller falls back to JSON.parse, so odd input
 * gets the same treatment (and error messages) as before. Not checked: the
 * inside of values nobody reads (a raw tab in a skipped string, say), so
 * such a line, which JSON.parse would refuse, is read here.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipWs(b: Buffer, i: number): number {
  while (i < b.length) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Whether the byte at `at` is escaped: preceded by an odd run of backslashes, counted back no further than `from`. */
function isEscaped(b: Buffer, at: number, from: number): boolean {
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
function skipValue(b: Buffer, i: number): number {
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
 * Walks the top-level members of an object in order, calling `visit` with
 * each (decoded) key, the byte range of its value and where its key starts.
 * Returns the end (exclusive) of the object, or -1 when it cannot be read;
 * whatever follows is the caller's to check.
 */
export function walkMembers(b: Buffer, visit: (key: string, value: Slice, keyStart: number) => void): number {
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) return -1;
  i = skipWs(b, i + 1);
  if (b[i] === 0x7d) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const keyStart = i;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return -1;
    const key = keyText(b, i, keyEnd);
    if (key === undefined) return -1;
    i = skipWs(b, keyEnd);
    if (b[i] !== 0x3a) return -1;
    i = skipWs(b, i + 1);
    const end = skipValue(b, i);
    if (end < 0) return -1;
    visit(key, [i, end], keyStart);
    i = skipWs(b, end);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    return b[i] === 0x7d ? i + 1 : -1;
  }
}

/** A key's decoded text; escaped keys (rare, and short) go through JSON.parse. */
function keyText(b: Buffer, start: number, end: number): string | undefined {
  let plain = true;
  for (let k = start + 1; k < end - 1 && plain; k++) plain = b[k] !== BACKSLASH;
  if (plain) return b.toString('utf8', start + 1, end - 1);
  try {
    return JSON.parse(b.toString('utf8', start, end)) as string;
  } catch {
    return undefined;
  }
}

/** The byte ranges of the wanted top-level keys' values (the last one of a repeated key, as JSON.parse keeps). */
export function topLevelValues(b: Buffer, wanted: ReadonlySet<string>): Map<string, Slice> | undefined {
  const found = new Map<string, Slice>();
  const end = walkMembers(b, (key, value) => {
    if (wanted.has(key)) found.set(key, value);
  });
  return end >= 0 && skipWs(b, end) === b.length ? found : undefined;
}

/**
 * The byte range of the top-level `key`'s value (the last one when the key
 * is repeated, as JSON.parse keeps), or undefined when it is absent or the
 * line is not an object this walk can read. The name is kept for callers;
 * it walks the whole line, since a later spelling of the key wins.
 */
export function firstTopLevelValue(b: Buffer, key: string): Slice | undefined {
  return topLevelValues(b, new Set([key]))?.get(key);
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

/** What scanFields reads of a line: built once per reader (see fieldScan). */
export interface FieldScan {
  parse: readonly string[];
  turnLists: readonly string[];
  wanted: ReadonlySet<string>;
}

/**
 * `parse`: keys whose values are parsed; `turnLists`: per-turn lists
 * (prompt, response) of which only element turn_idx - 1 is parsed;
 * `locate`: keys only found (their byte ranges), never decoded.
 */
export function fieldScan(parse: readonly string[], opts: { turnLists?: readonly string[]; locate?: readonly string[] } = {}): FieldScan {
  const turnLists = opts.turnLists ?? [];
  // A turn list is cut at turn_idx, so turn_idx is read whenever there are any.
  const parsed = turnLists.length && !parse.includes('turn_idx') ? [...parse, 'turn_idx'] : parse;
  return { parse: parsed, turnLists, wanted: new Set([...parsed, ...turnLists, ...(opts.locate ?? [])]) };
}

export interface ScannedFields {
  /** The parsed values of the keys present. A turn list's is a sparse array holding only element turn_idx - 1 (any other value: parsed whole). */
  fields: Record<string, unknown>;
  /** The byte range of every wanted key present. */
  at: ReadonlyMap<string, Slice>;
}

/**
 * The few small top-level fields a reader needs, from a line's bytes alone,
 * without decoding the histories. undefined when the line is cut, the walk
 * cannot read it, a value does not parse or (with turn lists) turn_idx is no
 * whole number from 1: the caller then parses the line whole with
 * JSON.parse, the reference this is tested against, which also words the
 * errors.
 */
export function scanFields(line: { bytes: Buffer; terminated: boolean }, scan: FieldScan): ScannedFields | undefined {
  if (!line.terminated) return undefined;
  const b = line.bytes;
  const at = topLevelValues(b, scan.wanted);
  if (!at) return undefined;
  try {
    const fields: Record<string, unknown> = {};
    for (const k of scan.parse) {
      const v = parseSlice(b, at.get(k));
      if (v !== undefined) fields[k] = v;
    }
    if (scan.turnLists.length) {
      const turn = fields.turn_idx;
      if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 1) return undefined;
      for (const k of scan.turnLists) {
        const slice = at.get(k);
        if (!slice) continue;
        if (b[slice[0]] !== 0x5b) fields[k] = parseSlice(b, slice);
        else {
          const element = arrayElement(b, slice, turn - 1);
          fields[k] = element ? Object.assign([], { [turn - 1]: parseSlice(b, element) }) : [];
        }
      }
    }
    return { fields, at };
  } catch {
    return undefined;
  }
}
