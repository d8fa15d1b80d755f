import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { parseRow, type BadRow } from './input.js';
import type { BodyPart, FileRange } from '../endpoints/index.js';
import { decodeLine } from './jsonl.js';
import { skipValue, skipWs, type Slice } from './json-scan.js';
import { hashToken } from './json-text.js';
import { exactId } from './raw-json.js';
import { fingerprintOf, keyOf, rowKey } from './row-key.js';
import { turnProblem, type DatasetRow } from '../schemas/index.js';

/*
 * Rows are megabytes of history, and infer and judge only forward that
 * history to an endpoint. Decoding it into JavaScript strings, parsing,
 * re-serialising and re-encoding it cost most of their CPU and most of their
 * memory (large strings are slow to create and linger until a full GC). So a
 * row is checked in its bytes, its small fields are parsed and validated by
 * the same zod schema as ever, and the long texts stay JSON string tokens
 * that requests copy byte for byte. A line this reader is unsure of goes
 * through the plain JSON.parse path, which also words every error.
 */

/** The long texts of a row, as JSON string tokens (quotes included): what requests are built from. */
export interface RowText {
  /** A top-level string field; undefined when absent or not a string. */
  field(name: string): Buffer | undefined;
  /** Entry `i` of the prompt or response list; undefined past its end. */
  item(list: 'prompt' | 'response', i: number): Buffer | undefined;
  /**
   * Where a piece of a token (a subarray of it) can be read when the request
   * is sent: its range in the input file when the row was read from one, else
   * bytes of its own (a token's view of the line does not outlive the line).
   */
  locate(piece: Buffer): BodyPart;
}

/** The fields read through RowText; in a row from the byte path they hold a placeholder, never the text. */
const LONG_FIELDS: ReadonlySet<string> = new Set(['prompt', 'response', 'system_str', 'current_prompt', 'gen', 'gen_reasoning']);
const LISTS: ReadonlySet<string> = new Set(['prompt', 'response']);
/** Stands for a non-empty long text in the validated row, so zod and emptiness checks see the truth. */
export const NOT_DECODED = '\u0000(read through RowText)';

const EMPTY_TOKEN = Buffer.from('""');

/** Texts shorter than this go into a request plan as bytes, longer ones as a range of the input file. */
const KEEP_BELOW = 4096;

export function decodeToken(token: Buffer | undefined): string {
  return token === undefined ? '' : (JSON.parse(token.toString('utf8')) as string);
}

let scratchBuffer = Buffer.alloc(0);

/** A buffer for unescaping a token, reused (rows are read one at a time, synchronously) unless it is a rare large one. */
function scratch(size: number): Buffer {
  if (size > 1 << 20) return Buffer.allocUnsafe(size);
  if (scratchBuffer.length < size) scratchBuffer = Buffer.allocUnsafeSlow(Math.max(size, 64 * 1024));
  return scratchBuffer;
}

/** A token whose string is empty (`""`); any other token holds at least one character. */
export function isEmptyToken(token: Buffer | undefined): boolean {
  return token === undefined || token.length <= 2;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
const SIMPLE_ESCAPES = new Uint8Array(256);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPES[c.charCodeAt(0)] = 1;

/**
 * End (exclusive) of the JSON string token starting at `i` (a quote), or -1
 * when it is not one JSON.parse would accept: raw control characters, bad
 * escapes, no closing quote. UTF-8 validity is checked once for the line.
 */
export function stringTokenEnd(b: Buffer, i: number): number {
  const n = b.length;
  let j = i + 1;
  while (j < n) {
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = b[j + 1];
      if (e === undefined) return -1;
      if (SIMPLE_ESCAPES[e]) j += 2;
      else if (e === 0x75 && HEX[b[j + 2]!] && HEX[b[j + 3]!] && HEX[b[j + 4]!] && HEX[b[j + 5]!]) j += 6;
      else return -1;
    } else j++;
  }
  return -1;
}

interface ScannedLine {
  values: Map<string, Slice>;
  /** Element slices of top-level lists of strings. */
  items: Map<string, Slice[]>;
}

/** The top-level fields of a line known to be a valid JSON object, or undefined to let JSON.parse decide. */
function scanObject(b: Buffer): ScannedLine | undefined {
  const values = new Map<string, Slice>();
  const items = new Map<string, Slice[]>();
  let i = skipWs(b, 0);
  if (b[i] !== 0x7b) return undefined;
  i = skipWs(b, i + 1);
  if (b[i] === 0x7d) return skipWs(b, i + 1) === b.length ? { values, items } : undefined;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = stringTokenEnd(b, i);
    if (keyEnd < 0 || keyEnd - i > 256) return undefined;
    const key = JSON.parse(b.toString('utf8', i, keyEnd)) as string;
    // A repeated key, or one that would set a prototype, is JSON.parse's to interpret.
    if (values.has(key) || key === '__proto__') return undefined;
    i = skipWs(b, keyEnd);
    if (b[i] !== 0x3a) return undefined;
    i = skipWs(b, i + 1);
    let end: number;
    if (b[i] === QUOTE) end = stringTokenEnd(b, i);
    else if (b[i] === 0x5b && LISTS.has(key)) {
      const list = scanStringList(b, i);
      if (!list) return undefined;
      items.set(key, list.items);
      end = list.end;
    } else end = skipValue(b, i);
    if (end < 0) return undefined;
    values.set(key, [i, end]);
    i = skipWs(b, end);
    if (b[i] === 0x2c) {
      i = skipWs(b, i + 1);
      continue;
    }
    if (b[i] === 0x7d) return skipWs(b, i + 1) === b.length ? { values, items } : undefined;
    return undefined;
  }
}

/** A list made only of strings, each checked; anything else in it is left to JSON.parse. */
function scanStringList(b: Buffer, i: number): { items: Slice[]; end: number } | undefined {
  const items: Slice[] = [];
  i = skipWs(b, i + 1);
  if (b[i] === 0x5d) return { items, end: i + 1 };
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const end = stringTokenEnd(b, i);
    if (end < 0) return undefined;
    items.push([i, end]);
    i = skipWs(b, end);
    if (b[i] === 0x5d) return { items, end: i + 1 };
    if (b[i] !== 0x2c) return undefined;
    i = skipWs(b, i + 1);
  }
}

export type ReadRow<T> =
  | {
      ok: true;
      row: T;
      text: RowText;
      key: string;
      /** The line as text and parsed: kept only from the JSON.parse path, for rows that already have a field being added. */
      line?: { text: string; parsed: Record<string, unknown> };
    }
  | { ok: false; bad: BadRow };

export interface ReadRowOptions {
  file: string;
  lineNo: number;
  terminated: boolean;
  /** Fields about to be appended: a row that has one already is taken through JSON.parse, and its text kept. */
  added: readonly string[];
  /** The input file, and where the line starts in it. */
  source?: { file: FileRange['file']; offset: number };
}

/**
 * Reads and checks one input line. `bytes` may be a reused buffer: the
 * RowText of a row read from bytes points into it and is valid only until
 * the next line is read.
 */
export function readRow<S extends z.ZodType<DatasetRow>>(bytes: Buffer, schema: S, opts: ReadRowOptions): ReadRow<z.infer<S>> {
  return (opts.terminated && fromBytes(bytes, schema, opts)) || fromText(bytes, schema, opts);
}

function fromBytes<S extends z.ZodType<DatasetRow>>(
  b: Buffer,
  schema: S,
  { added, source }: ReadRowOptions,
): ReadRow<z.infer<S>> | undefined {
  if (!isUtf8(b)) return undefined;
  const scanned = scanObject(b);
  if (!scanned || added.some((k) => scanned.values.has(k))) return undefined;
  const { values, items } = scanned;
  const token = ([start, end]: Slice) => b.subarray(start, end);
  const skeleton: Record<string, unknown> = {};
  try {
    for (const [key, slice] of values) {
      if (!LONG_FIELDS.has(key)) skeleton[key] = JSON.parse(b.toString('utf8', slice[0], slice[1]));
      else if (b[slice[0]] === QUOTE) skeleton[key] = slice[1] - slice[0] <= 2 ? '' : NOT_DECODED;
      else if (items.has(key)) skeleton[key] = items.get(key)!.map((s) => (s[1] - s[0] <= 2 ? '' : NOT_DECODED));
      else skeleton[key] = JSON.parse(b.toString('utf8', slice[0], slice[1]));
    }
  } catch {
    return undefined;
  }
  // A bare-string list (allowed in hand-made files) is reshaped by the schema; the text path handles it.
  if (typeof skeleton.prompt === 'string' || typeof skeleton.response === 'string') return undefined;
  const result = schema.safeParse(skeleton);
  if (!result.success || turnProblem(result.data)) return undefined;
  const row = result.data as z.infer<S>;
  const text: RowText = {
    field: (name) => {
      const slice = values.get(name);
      return slice && b[slice[0]] === QUOTE ? token(slice) : undefined;
    },
    item: (list, i) => {
      const slice = items.get(list)?.[i];
      return slice && token(slice);
    },
    locate: (piece) => {
      const at = piece.byteOffset - b.byteOffset;
      // Small pieces (most actions) are cheaper copied than read back one by one each time the request goes out.
      if (!source || piece.length < KEEP_BELOW || piece.buffer !== b.buffer || at < 0 || at + piece.length > b.length)
        return Buffer.from(piece);
      return { file: source.file, start: source.offset + at, end: source.offset + at + piece.length };
    },
  };
  const id = values.get('id');
  const idText = exactId(`{"id":${id ? b.toString('utf8', id[0], id[1]) : 'null'}}`, row.id);
  const fp = fingerprintOf([text.field('system_str'), currentAction(row, text), groundTruth(row, text)], (h, t) =>
    hashToken(h, t, scratch),
  );
  return { ok: true, row, text, key: keyOf(row.task, idText, row.turn_idx, fp) };
}

/** The action being evaluated: `current_prompt`, or the prompt list's entry when a hand-made row leaves it empty. */
export function currentAction(row: DatasetRow, text: RowText): Buffer {
  const current = text.field('current_prompt');
  return isEmptyToken(current) ? (text.item('prompt', row.turn_idx - 1) ?? EMPTY_TOKEN) : current!;
}

export function groundTruth(row: DatasetRow, text: RowText): Buffer {
  return text.item('response', row.turn_idx - 1) ?? EMPTY_TOKEN;
}

function fromText<S extends z.ZodType<DatasetRow>>(bytes: Buffer, schema: S, opts: ReadRowOptions): ReadRow<z.infer<S>> {
  const text = decodeLine(bytes);
  const parsedLine = parseRow(text, schema, opts.file, opts.lineNo, opts.terminated);
  if (!parsedLine.ok) return parsedLine;
  const { row, parsed } = parsedLine;
  const encoded = (v: unknown) => (typeof v === 'string' ? Buffer.from(JSON.stringify(v)) : undefined);
  return {
    ok: true,
    row,
    text: {
      field: (name) => encoded((row as Record<string, unknown>)[name]),
      item: (list, i) => encoded(row[list][i]),
      // Tokens here are buffers of their own, made from the parsed row.
      locate: (piece) => piece,
    },
    key: rowKey(text, row),
    ...(opts.added.some((k) => Object.hasOwn(parsed, k)) ? { line: { text, parsed } } : {}),
  };
}
